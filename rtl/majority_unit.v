// Branch herding majority vote (branch/data herding paper, Section III-B). C++ model: hw/units/majority_unit.hpp.
//
// Only active lanes vote. herd_taken = 2 * (taken & active count) > (active count): a strict majority of the
// active lanes; an exact tie goes to not-taken, or to taken when TIE_TAKEN = 1. With no active lane every
// output is 0. all_taken / none_taken need a nonzero active mask; uniform = all_taken | none_taken.
// The paper notes majority logic is cheaper than a population count; this version counts and compares, which
// is simple and obviously correct. A majority-gate tree is a later area optimisation.
module majority_unit #(
    parameter integer W = 32,
    parameter integer TIE_TAKEN = 0
) (
    input  wire [W-1:0] taken,
    input  wire [W-1:0] active,
    output wire         herd_taken,
    output wire         all_taken,
    output wire         none_taken,
    output wire         uniform
);
  localparam integer CW = $clog2(W + 1);

  wire [W-1:0] yes = taken & active;
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

  wire any_active = |active;
  wire [CW:0] twice_yes = {yes_count, 1'b0};
  wire [CW:0] voters = {1'b0, voter_count};
  wire wins = TIE_TAKEN != 0 ? twice_yes >= voters : twice_yes > voters;

  assign herd_taken = any_active & wins;
  assign all_taken = any_active & (yes == active);
  assign none_taken = any_active & ~|yes;
  assign uniform = all_taken | none_taken;
endmodule
