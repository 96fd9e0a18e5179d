// Data herding's popular-block selector (branch/data herding paper, Section IV).
// C++ model: hw/units/popular_block_selector.hpp.
//
// Block id of lane i = addr_in[i] >> line_shift. count = number of active lanes in the most popular block;
// block = that block's id. Tie rule: among blocks with equal counts, the block of the lowest-numbered active
// lane wins. addr_out: each active lane's address with its block bits replaced by the winner's, keeping its
// offset within the block; inactive lanes pass through. No active lane: block = 0, count = 0.
// Cost: W*(W-1)/2 block comparators; the winner search is a linear chain of W compares (a tree is a later
// timing optimisation).
module popular_block_selector #(
    parameter integer W = 32,
    parameter integer AW = 64
) (
    input  wire [W*AW-1:0]        addr_in,
    input  wire [W-1:0]           active,
    input  wire [$clog2(AW)-1:0]  line_shift,
    output reg  [AW-1:0]          block,
    output reg  [$clog2(W+1)-1:0] count,
    output wire [W*AW-1:0]        addr_out
);
  localparam integer CW = $clog2(W + 1);

  wire [W*AW-1:0] block_of;
  wire [W*W-1:0] same_block;  // bit i*W+j: lanes i and j address the same block (symmetric)
  genvar i, j;
  generate
    for (i = 0; i < W; i = i + 1) begin : lane
      assign block_of[i*AW+:AW] = addr_in[i*AW+:AW] >> line_shift;
      assign same_block[i*W+i] = 1'b1;
      for (j = i + 1; j < W; j = j + 1) begin : pair
        wire same = block_of[i*AW+:AW] == block_of[j*AW+:AW];
        assign same_block[i*W+j] = same;
        assign same_block[j*W+i] = same;
      end
    end
  endgenerate

  reg [CW-1:0] lane_count;
  integer a, b;
  always @* begin
    block = {AW{1'b0}};
    count = {CW{1'b0}};
    for (a = 0; a < W; a = a + 1) begin
      lane_count = {CW{1'b0}};
      for (b = 0; b < W; b = b + 1) begin
        lane_count = lane_count + {{(CW - 1) {1'b0}}, active[a] & active[b] & same_block[a*W+b]};
      end
      if (lane_count > count) begin  // strictly greater keeps the lower lane's block on ties
        count = lane_count;
        block = block_of[a*AW+:AW];
      end
    end
  end

  wire [AW-1:0] offset_mask = ~({AW{1'b1}} << line_shift);
  wire [AW-1:0] block_base = block << line_shift;
  generate
    for (i = 0; i < W; i = i + 1) begin : rewrite
      wire [AW-1:0] addr = addr_in[i*AW+:AW];
      assign addr_out[i*AW+:AW] = active[i] ? (block_base | (addr & offset_mask)) : addr;
    end
  endgenerate
endmodule
