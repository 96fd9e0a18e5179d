// SIMD lane permutation unit (SLP paper, Section 4). C++ model: hw/units/lane_permutation.hpp.
//
// Each warp id has an XOR mask of log2(W) bits. Logical lane l of a warp runs in physical ("home") lane
// l ^ mask, so the active mask is permuted as: physical_mask[p] = logical_mask[p ^ mask] (XOR is its own
// inverse, so this is also "logical bit l moves to bit l ^ mask").
// mode: 0 = SLP disabled (identity), 1 = loadable table, 2 = Balanced (Equation 2: even warp w uses w/2,
// odd warp w the bitwise inverse of its even partner's mask, within log2(W) bits; ids wrap modulo 2W),
// 3 = identity (reserved).
// Table: 2**WARP_ID_BITS entries, written on the clock edge when wr_en, cleared to 0 by the synchronous rst.
// Reads are combinational. W must be a power of two in [8, 64].
module slp_permutation_unit #(
    parameter integer W = 32,
    parameter integer WARP_ID_BITS = 6
) (
    input  wire                    clk,
    input  wire                    rst,
    input  wire                    wr_en,
    input  wire [WARP_ID_BITS-1:0] wr_warp,
    input  wire [$clog2(W)-1:0]    wr_mask,
    input  wire [1:0]              mode,
    input  wire [WARP_ID_BITS-1:0] warp,
    input  wire [$clog2(W)-1:0]    lane,
    input  wire [W-1:0]            logical_mask,
    output wire [$clog2(W)-1:0]    xor_mask,
    output wire [$clog2(W)-1:0]    home_lane,
    output wire [W-1:0]            physical_mask
);
  localparam integer LB = $clog2(W);
  localparam integer ENTRIES = 1 << WARP_ID_BITS;

  // One register per entry (not a memory) so that reset and synthesis need no memory inference.
  wire [ENTRIES*LB-1:0] table_flat;
  genvar e;
  generate
    for (e = 0; e < ENTRIES; e = e + 1) begin : entry
      localparam [WARP_ID_BITS-1:0] ID = e;
      reg [LB-1:0] mask_q;
      always @(posedge clk) begin
        if (rst) mask_q <= {LB{1'b0}};
        else if (wr_en && wr_warp == ID) mask_q <= wr_mask;
      end
      assign table_flat[e*LB+:LB] = mask_q;
    end
  endgenerate
  wire [LB-1:0] table_mask = table_flat[warp*LB+:LB];

  // Balanced: bits [LB:1] of the warp id, inverted for odd warps. Zero-extend first so that narrow warp ids
  // (WARP_ID_BITS <= LB) still give LB bits.
  /* verilator lint_off UNUSEDSIGNAL */
  wire [WARP_ID_BITS+LB-1:0] warp_wide = {{LB{1'b0}}, warp};
  /* verilator lint_on UNUSEDSIGNAL */
  wire [LB-1:0] balanced_mask = warp_wide[LB:1] ^ {LB{warp[0]}};

  assign xor_mask = mode == 2'd1 ? table_mask : mode == 2'd2 ? balanced_mask : {LB{1'b0}};
  assign home_lane = lane ^ xor_mask;

  // Butterfly: stage s swaps lane pairs that differ in index bit s when mask bit s is set.
  reg [W-1:0] permuted;
  reg [W-1:0] before_stage;
  integer s, p;
  always @* begin
    permuted = logical_mask;
    for (s = 0; s < LB; s = s + 1) begin
      before_stage = permuted;
      for (p = 0; p < W; p = p + 1) begin
        if (xor_mask[s]) permuted[p] = before_stage[p^(1<<s)];
      end
    end
  end
  assign physical_mask = permuted;
endmodule
