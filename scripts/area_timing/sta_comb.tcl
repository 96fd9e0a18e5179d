# Combinational input-to-output worst path on a virtual clock (filled in by scripts/area-timing).
read_liberty {lib}
read_verilog {d}/comb_net.v
link_design {top}
create_clock -name vclk -period {period}
set ins [all_inputs]
{exclude_clock}
set_input_delay 0 -clock vclk $ins
set_output_delay 0 -clock vclk [all_outputs]
report_checks -path_delay max -group_count 1 -digits 4 -from $ins -to [all_outputs]
