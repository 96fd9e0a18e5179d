# Minimum period of the registered wrapper (period - worst slack at a generous probe period, rounded up to 1 ps,
# then confirmed by runs at that period: a slack still below zero by rounding adds 1 ps), its critical path,
# and for a purely combinational unit the input-to-output delay.
read_liberty {lib}
read_verilog {d}/wrap_net.v
link_design {wrap_top}
create_clock -name clk -period {probe} [get_ports clk]
puts "@@REG2REG"
report_checks -path_delay max -group_count 1 -digits 4
set min_period [expr {{ceil(({probe} - [sta::worst_slack -max]) * 1000.0) / 1000.0}}]
create_clock -name clk -period $min_period [get_ports clk]
set slack [sta::worst_slack -max]
for {{set i 0}} {{$slack < 0 && $i < 5}} {{incr i}} {{
  set min_period [expr {{$min_period + 0.001}}]
  create_clock -name clk -period $min_period [get_ports clk]
  set slack [sta::worst_slack -max]
}}
puts "@@MIN_PERIOD $min_period"
puts "@@CONFIRM_SLACK $slack"
{comb}
