# Register-to-register worst path of the registered wrapper (filled in by scripts/area-timing).
read_liberty {lib}
read_verilog {d}/wrap_net.v
link_design {wrap_top}
create_clock -name clk -period {period} [get_ports clk]
report_checks -path_delay max -group_count 1 -digits 4 -from [all_registers -clock_pins] -to [all_registers -data_pins]
