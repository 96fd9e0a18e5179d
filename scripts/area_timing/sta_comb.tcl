read_verilog {d}/wrap_net.v
link_design {top}
create_clock -name vclk -period {probe}
set_input_delay 0 -clock vclk [all_inputs]
set_output_delay 0 -clock vclk [all_outputs]
set_driving_cell -lib_cell {drive_cell} [all_inputs]
set_load {load_pf} [all_outputs]
puts "@@COMB"
report_checks -path_delay max -group_count 1 -digits 4 -from [all_inputs] -to [all_outputs]
