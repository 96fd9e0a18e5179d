// Thread block compaction's priority-encoder compactor (SLP paper, Figure 2).
// C++ model: hw/units/priority_encoder_compactor.hpp.
//
// pending holds the CTA-wide mask, bit w*W+l = thread (warp w, lane l) pending. A thread may only run in its
// home lane, so each lane has its own priority encoder over the warps of its column: the compacted warp takes,
// per lane, the lowest-numbered pending warp (lane_warp[l*WB +: WB], 0 for idle lanes; lane_mask marks busy
// lanes). Outputs are combinational from the state; on a clock edge with pop those threads are cleared.
// load replaces the state with pending_in (load wins over pop; rst clears). valid = anything pending; when it
// drops the compaction is done. NWARPS: warps per CTA, 16 for synthesis (the model accepts up to 256).
module priority_encoder_compactor #(
    parameter integer W = 32,
    parameter integer NWARPS = 16
) (
    input  wire                                                 clk,
    input  wire                                                 rst,
    input  wire                                                 load,
    input  wire [NWARPS*W-1:0]                                  pending_in,
    input  wire                                                 pop,
    output wire                                                 valid,
    output wire [W-1:0]                                         lane_mask,
    output wire [W*((NWARPS > 1) ? $clog2(NWARPS) : 1)-1:0]     lane_warp
);
  localparam integer WB = (NWARPS > 1) ? $clog2(NWARPS) : 1;

  reg  [NWARPS*W-1:0] pending;
  wire [NWARPS*W-1:0] grant;

  genvar l, w;
  generate
    for (l = 0; l < W; l = l + 1) begin : lane
      wire [NWARPS-1:0] column;
      for (w = 0; w < NWARPS; w = w + 1) begin : gather
        assign column[w] = pending[w*W+l];
      end
      wire [NWARPS-1:0] first = column & (-column);  // lowest set bit only
      reg [WB-1:0] index;
      integer k;
      always @* begin
        index = {WB{1'b0}};
        for (k = 0; k < NWARPS; k = k + 1) begin
          if (first[k]) index = index | k[WB-1:0];
        end
      end
      for (w = 0; w < NWARPS; w = w + 1) begin : scatter
        assign grant[w*W+l] = first[w];
      end
      assign lane_mask[l] = |column;
      assign lane_warp[l*WB+:WB] = index;
    end
  endgenerate

  always @(posedge clk) begin
    if (rst) pending <= {NWARPS * W{1'b0}};
    else if (load) pending <= pending_in;
    else if (pop) pending <= pending & ~grant;
  end

  assign valid = |pending;
endmodule
