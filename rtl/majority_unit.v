// Branch herding majority vote (branch/data herding paper, Section III-B). C++ model: hw/units/majority_unit.hpp.
//
// Contract (every STRUCTURE): only active lanes vote. herd_taken = 2 * (taken & active count) > (active count):
// a strict majority of the active lanes; an exact tie goes to not-taken, or to taken when TIE_TAKEN = 1. With
// no active lane every output is 0. all_taken / none_taken need a nonzero active mask;
// uniform = all_taken | none_taken. W is the SIMD width (8..64; STRUCTURE 1 pads to a power of two).
//
// STRUCTURE picks how herd_taken is computed; the answers are identical (scripts/prove-majority proves it with
// a SAT miter, testbenches/rtl/test_majority_structures_cc.cpp by simulation):
//   0  counting: count taken voters and voters separately, then compare twice the first with the second.
//      Obviously correct, kept as the reference; it pays for two W-input counters and a magnitude comparator.
//   1  signed adder tree: each lane contributes +1 (active, taken), -1 (active, not taken) or 0 (inactive); a
//      balanced tree of adders, one bit wider per level, sums them and the sign decides. The strict-majority
//      bias (-1) is folded into lane 0's leaf encoding, so no comparator remains, only the root's sign bit.
//   2  majority gate: herd_taken = any_active & MAJ(yes[W], ~no[W], TIE_TAKEN) over 2W+1 inputs, where
//      yes = taken & active and no = ~taken & active (yes - no >= 1 - tie  <=>
//      popcount(yes) + popcount(~no) + tie >= W + 1). The majority is a carry-save tree of full adders
//      (sum = XOR3, carry = MAJ3, sharing one XOR2), scheduled column by column at elaboration, then one short
//      adder and a test against the constant W + 1. A lane's two inputs never are (1, 0), so the half adder
//      that pairs them is wires: sum yes ^ ~no = ~active stays in column 0, carry yes & ~no = yes goes to
//      column 1. One counter tree and a constant test replace structure 0's two counters and comparator.
// Measured with Yosys 0.23 + ABC (-D 2000, INVX1 driver, 0.01 load) on the OSU018 liberty
// (scripts/prove-majority --area): structure 2 is the smallest at W = 32 (14631 um^2; 0 takes 14677, 1 takes
// 15024) and at W = 64, so it is the default. The margin is small because Yosys already builds carry-save trees
// from structure 0's counting loops. Structure 1 is the smallest at W = 8, structure 0 at W = 16.
module majority_unit #(
    parameter integer W = 32,
    parameter integer TIE_TAKEN = 0,
    parameter integer STRUCTURE = 2
) (
    input  wire [W-1:0] taken,
    input  wire [W-1:0] active,
    output wire         herd_taken,
    output wire         all_taken,
    output wire         none_taken,
    output wire         uniform
);
  wire [W-1:0] yes = taken & active;
  wire any_active = |active;
  wire wins;

  // ---- STRUCTURE 1: the signed adder tree has TREE_LEAVES leaves (W rounded up to a power of two).
  localparam integer TREE_LEVELS = $clog2(W);
  localparam integer TREE_LEAVES = 1 << TREE_LEVELS;

  // ---- STRUCTURE 2: schedule of the carry-save tree. Bits of equal weight form a column (W + 1 of weight 1
  // and W of weight 2 to start); every stage puts each column's bits through as many full adders as it has
  // whole groups of three (Wallace), leftovers pass through. Column heights per stage are worked out here, 32
  // bits per column, so the generate loops below know where each bit sits in its stage's vector.
  localparam integer CSA_INPUTS = 2 * W + 1;
  // The sum is at most 2W+1: it never carries beyond column $clog2(2W+2)-1; one spare column is checked below.
  localparam integer CSA_COLUMNS = $clog2(CSA_INPUTS + 1) + 1;

  // One Wallace stage: every group of three bits in a column goes through a full adder, whose sum stays in the
  // column and whose carry moves one column up; leftovers pass through.
  function [CSA_COLUMNS*32-1:0] csa_step(input [CSA_COLUMNS*32-1:0] heights);
    integer c, height, carries_in;
    begin
      carries_in = 0;
      for (c = 0; c < CSA_COLUMNS; c = c + 1) begin
        height = heights[c*32+:32];
        csa_step[c*32+:32] = height % 3 + height / 3 + carries_in;
        carries_in = height / 3;
      end
    end
  endfunction

  function [CSA_COLUMNS*32-1:0] csa_heights(input integer stage);
    integer s;
    begin
      csa_heights = {(CSA_COLUMNS * 32) {1'b0}};
      csa_heights[31:0] = W + 1;
      csa_heights[63:32] = W;
      for (s = 0; s < stage; s = s + 1) csa_heights = csa_step(csa_heights);
    end
  endfunction

  // Position of bit 0 of `column` in a stage's vector whose column heights are `heights` (columns in order,
  // each its bits in order).
  function integer csa_base(input [CSA_COLUMNS*32-1:0] heights, input integer column);
    integer c;
    begin
      csa_base = 0;
      for (c = 0; c < column; c = c + 1) csa_base = csa_base + heights[c*32+:32];
    end
  endfunction

  // Stages until no column holds more than two bits (what the final adder takes). Each stage removes at least
  // one bit, so `bound` = CSA_INPUTS stages always suffice.
  function integer csa_stages(input integer bound);
    reg [CSA_COLUMNS*32-1:0] heights;
    integer s, c, tallest;
    begin
      heights = csa_heights(0);
      csa_stages = 0;
      for (s = 0; s < bound; s = s + 1) begin
        tallest = 0;
        for (c = 0; c < CSA_COLUMNS; c = c + 1) if (heights[c*32+:32] > tallest) tallest = heights[c*32+:32];
        if (tallest > 2) begin
          heights = csa_step(heights);
          csa_stages = s + 1;
        end
      end
    end
  endfunction

  genvar lane, level, node, stage, column, adder, rest;
  generate
    if (STRUCTURE == 0) begin : counting
      localparam integer CW = $clog2(W + 1);
      reg [CW-1:0] yes_count;
      reg [CW-1:0] voter_count;
      integer i;
      always @* begin
        yes_count = {CW{1'b0}};
        voter_count = {CW{1'b0}};
        for (i = 0; i < W; i = i + 1) begin
          yes_count = yes_count + {{(CW - 1) {1'b0}}, yes[i]};
          voter_count = voter_count + {{(CW - 1) {1'b0}}, active[i]};
        end
      end
      wire [CW:0] twice_yes = {yes_count, 1'b0};
      wire [CW:0] voters = {1'b0, voter_count};
      assign wins = TIE_TAKEN != 0 ? twice_yes >= voters : twice_yes > voters;
    end else if (STRUCTURE == 1) begin : signed_tree
      // Level l holds TREE_LEAVES >> l sums of l + 2 bits (two's complement), each the sum of two sums below.
      for (level = 0; level <= TREE_LEVELS; level = level + 1) begin : tree_level
        wire [(TREE_LEAVES>>level)*(level+2)-1:0] sums;
        if (level == 0) begin : leaves
          // +1 = 01, 0 = 00, -1 = 11. With ties not taken the root must be >= 1: lane 0 carries a -1 bias
          // (its leaf is v - 1: 00, 11, 10), so the root's sign alone decides for both tie rules.
          for (lane = 0; lane < TREE_LEAVES; lane = lane + 1) begin : leaf
            if (lane >= W) begin : padding
              assign sums[2*lane+:2] = 2'b00;
            end else if (lane == 0 && TIE_TAKEN == 0) begin : biased
              assign sums[1:0] = {~yes[0], ~active[0]};
            end else begin : plain
              assign sums[2*lane+:2] = {active[lane] & ~taken[lane], active[lane]};
            end
          end
        end else begin : adders
          for (node = 0; node < (TREE_LEAVES >> level); node = node + 1) begin : adder
            wire [level:0] left = tree_level[level-1].sums[2*node*(level+1)+:level+1];
            wire [level:0] right = tree_level[level-1].sums[(2*node+1)*(level+1)+:level+1];
            assign sums[node*(level+2)+:level+2] = {left[level], left} + {right[level], right};
          end
        end
      end
      assign wins = ~tree_level[TREE_LEVELS].sums[TREE_LEVELS+1];
    end else if (STRUCTURE == 2) begin : majority_gate
      localparam integer STAGES = csa_stages(CSA_INPUTS);
      // Column heights of every stage, worked out once per stage (Yosys evaluates constant functions slowly).
      for (stage = 0; stage <= STAGES; stage = stage + 1) begin : csa_stage
        localparam [CSA_COLUMNS*32-1:0] HEIGHTS = csa_heights(stage);
        wire [csa_base(HEIGHTS, CSA_COLUMNS)-1:0] bits;
        if (stage == 0) begin : inputs
          assign bits = {yes, TIE_TAKEN != 0 ? 1'b1 : 1'b0, ~active};
        end else begin : reduced
          localparam [CSA_COLUMNS*32-1:0] BELOW = csa_heights(stage - 1);
          // Column c of this stage: the leftovers of column c below, the sums of its full adders, then the
          // carries of the full adders of column c - 1 below. Adder k takes bits 3k..3k+2 of its column.
          for (column = 0; column < CSA_COLUMNS; column = column + 1) begin : csa_column
            localparam integer HEIGHT = BELOW[column*32+:32];
            localparam integer ADDERS = HEIGHT / 3;
            localparam integer FROM = csa_base(BELOW, column);
            localparam integer TO = csa_base(HEIGHTS, column);
            for (rest = 0; rest < HEIGHT % 3; rest = rest + 1) begin : pass
              assign bits[TO+rest] = csa_stage[stage-1].bits[FROM+3*ADDERS+rest];
            end
            for (adder = 0; adder < ADDERS; adder = adder + 1) begin : full_adder
              wire [2:0] in = csa_stage[stage-1].bits[FROM+3*adder+:3];
              wire half = in[0] ^ in[1];  // shared by sum (XOR3) and carry (MAJ3)
              assign bits[TO+HEIGHT%3+adder] = half ^ in[2];
              if (column + 1 < CSA_COLUMNS) begin : carry
                localparam integer ABOVE = BELOW[(column+1)*32+:32];
                // A localparam, not a call in the index: Verilator would evaluate the call at every eval().
                localparam integer CARRY_TO = csa_base(HEIGHTS, column + 1) + ABOVE % 3 + ABOVE / 3;
                assign bits[CARRY_TO+adder] = in[0] & in[1] | half & in[2];
              end
            end
          end
          if (BELOW[(CSA_COLUMNS-1)*32+:32] >= 3) begin : overflow
            majority_unit_carry_beyond_last_column error ();
          end
        end
      end
      localparam [CSA_COLUMNS*32-1:0] LAST = csa_heights(STAGES);
      wire [CSA_COLUMNS-1:0] row0;
      wire [CSA_COLUMNS-1:0] row1;
      for (column = 0; column < CSA_COLUMNS; column = column + 1) begin : final_column
        localparam integer HEIGHT = LAST[column*32+:32];
        localparam integer BASE = csa_base(LAST, column);
        if (HEIGHT >= 1) begin : first
          assign row0[column] = csa_stage[STAGES].bits[BASE];
        end else begin : first_empty
          assign row0[column] = 1'b0;
        end
        if (HEIGHT >= 2) begin : second
          assign row1[column] = csa_stage[STAGES].bits[BASE+1];
        end else begin : second_empty
          assign row1[column] = 1'b0;
        end
      end
      localparam integer MAJORITY = W + 1;
      wire [CSA_COLUMNS:0] ones = {1'b0, row0} + {1'b0, row1};
      assign wins = ones >= MAJORITY[CSA_COLUMNS:0];
    end else begin : unknown_structure
      majority_unit_structure_must_be_0_1_or_2 error ();
    end
  endgenerate

  assign herd_taken = any_active & wins;
  assign all_taken = any_active & (yes == active);
  assign none_taken = any_active & ~|yes;
  assign uniform = all_taken | none_taken;
endmodule
