// Data herding's popular-block selector (branch/data herding paper, Section IV), built as the coalescer
// stage of a load/store unit would hold it. C++ model: hw/units/popular_block_selector.hpp.
//
// Function. Block id of lane i = addr_in[i] >> line_shift. count = number of active lanes in the most popular
// block; block = that block's id. Tie rule: among blocks with equal counts, the block of the lowest-numbered
// active lane wins. addr_out: each active lane's address with its block bits replaced by the winner's,
// keeping its offset within the block; inactive lanes pass through. No active lane: block = 0, count = 0.
//
// Handshake and timing contract.
// - `start` is sampled on a rising edge of clk (edge 0). The unit does not copy addr_in, active and
//   line_shift: they must hold their values from edge 0 until the outputs have been used, i.e. until the next
//   start (the load's address registers in the LSU already hold them while the load sits in this stage;
//   a private copy would add W*AW flip-flops).
// - Latency: done rises after edge L = ROUNDS + 1 (counting edge 0 as the edge that samples start); from then
//   on block, count and addr_out are valid and hold (with the inputs) until the next start. busy is high from
//   edge 0 until done rises. A start while busy abandons the running selection and begins a new one.
// - rst (synchronous): idle, done = 0, count = 0, block = 0, addr_out = addr_in (no winner).
//
// Structure. The tag of a lane is its address with the offset bits masked off (one mask for all lanes, no
// shifter per lane). The W lanes are candidates in ROUNDS rounds of C = W / ROUNDS consecutive lanes. Two
// pipeline stages, one round per cycle in each:
//   A: each candidate's tag against the tags of the lanes after it (match vector ANDed with active; see
//      "suffix counts" below) and the match vector's population count, 0 for an inactive candidate ->
//      registered per candidate;
//   B: arg-max tree over the round's registered counts (the lower candidate wins equal counts), then the
//      running best is replaced only by a strictly greater count -> best count and best lane registered.
// Rounds go in lane order, so "strictly greater" keeps the lowest lane on ties across rounds. Round r is in A
// during cycle r+1 and in B during cycle r+2: ROUNDS + 1 cycles in all. The outputs are decoded from the best
// lane: its tag (a W-way AND-OR select), one right shift for `block`, and the rewrite per lane
// (active & a winner exists) ? (winner_tag | (addr & ~mask)) : addr. Comparators: candidate slot i compares
// with lanes i+1..W-1, C*W - C*(C+1)/2 of AW bits in all (W*(W-1)/2 with ROUNDS = 1).
//
// Parameters: W lanes (a power of two, 8..64); AW address bits (64 or 32); ROUNDS a power of two from 1 to W
// (W / ROUNDS candidate lanes per cycle; ROUNDS = W is one candidate per cycle).
module popular_block_selector #(
    parameter integer W = 32,
    parameter integer AW = 64,
    parameter integer ROUNDS = 1
) (
    input  wire                   clk,
    input  wire                   rst,
    input  wire                   start,
    input  wire [W*AW-1:0]        addr_in,
    input  wire [W-1:0]           active,
    input  wire [$clog2(AW)-1:0]  line_shift,
    output wire [AW-1:0]          block,
    output wire [$clog2(W+1)-1:0] count,
    output wire [W*AW-1:0]        addr_out,
    output reg                    done,
    output wire                   busy
);
  localparam integer CW = $clog2(W + 1);  // bits of a lane count 0..W
  localparam integer LW = $clog2(W);  // bits of a lane index
  localparam integer C = W / ROUNDS;  // candidates per round
  localparam integer CIW = C > 1 ? $clog2(C) : 1;  // bits of a candidate index within a round
  localparam [LW:0] C_STEP = C[LW:0];  // lane index of the next round's first candidate, relative

  // --- control: one-hot phase; phase[r] (r < ROUNDS) = round r in stage A, phase[r] (r >= 1) = round r-1 in B
  reg  [ROUNDS:0] phase;
  wire            merging = |phase[ROUNDS:1];
  assign busy = |phase;

  // --- tags: the block bits of each address in place, offset bits cleared
  wire [  AW-1:0] tag_mask = {AW{1'b1}} << line_shift;
  wire [W*AW-1:0] tags;
  genvar i, j, n;
  generate
    for (i = 0; i < W; i = i + 1) begin : tag_of
      assign tags[i*AW+:AW] = addr_in[i*AW+:AW] & tag_mask;
    end
  endgenerate

  // --- stage A: this round's candidates (AND-OR select by the one-hot phase), match vectors, counts
  wire [C*AW-1:0] cand_tag;
  wire [   C-1:0] cand_active;
  generate
    if (ROUNDS == 1) begin : no_select
      assign cand_tag = tags;
      assign cand_active = active;
      wire unused_last_tag = &{1'b0, cand_tag[(W-1)*AW+:AW]};  // it has no later lane to compare with
    end else begin : select_round
      for (i = 0; i < C; i = i + 1) begin : slot
        reg [AW-1:0] t;
        reg          a;
        integer      k;
        always @* begin
          t = {AW{1'b0}};
          a = 1'b0;
          for (k = 0; k < ROUNDS; k = k + 1) begin
            t = t | ({AW{phase[k]}} & tags[(k*C+i)*AW+:AW]);
            a = a | (phase[k] & active[k*C+i]);
          end
        end
        assign cand_tag[i*AW+:AW] = t;
        assign cand_active[i] = a;
      end
    end
  endgenerate

  // Suffix counts: a candidate counts itself and the active lanes after it in its block. The block's first
  // active lane gets the full count and its later lanes less, so the arg-max with the lower lane winning ties
  // picks the same lane (and count) as full counts would, with half the comparators and adder inputs.
  // match bit j of slot i: j == i stands for the candidate itself; j > i is lane j when it comes after the
  // candidate in the current round (slot i is lane r*C+i in round r: lane j counts in rounds r*C+i < j).
  reg [C*CW-1:0] a_count;  // stage A -> B register: per candidate of the round, its count
  generate
    for (i = 0; i < C; i = i + 1) begin : cand
      wire [W-1:0] match;
      for (j = 0; j < W; j = j + 1) begin : lane
        localparam integer LAST_ROUND = (j - i - 1) / C;  // last round whose slot-i lane precedes lane j
        if (j < i) begin : earlier
          assign match[j] = 1'b0;
        end else if (j == i) begin : itself
          assign match[j] = 1'b1;
        end else begin : later
          wire same = cand_tag[i*AW+:AW] == tags[j*AW+:AW];
          if (LAST_ROUND >= ROUNDS - 1) begin : every_round
            assign match[j] = active[j] & same;
          end else begin : early_rounds
            assign match[j] = active[j] & same & |phase[LAST_ROUND:0];
          end
        end
      end
      reg     [CW-1:0] sum;
      integer          k;
      always @* begin
        sum = {CW{1'b0}};
        for (k = i; k < W; k = k + 1) sum = sum + {{(CW - 1) {1'b0}}, match[k]};
      end
      always @(posedge clk) a_count[i*CW+:CW] <= {CW{cand_active[i]}} & sum;
      if (i > 0) begin : unused_earlier
        wire unused_ok = &{1'b0, match[i-1:0]};
      end
    end
  endgenerate

  // --- stage B: arg-max tree as a heap: node n (1..2C-1, stored at n-1) has children 2n and 2n+1; the leaves
  // C..2C-1 are the candidates. split_var lets Verilator order the nodes of one vector without a false loop.
  wire [CW-1:0] round_count;
  wire [CIW-1:0] round_index;
  generate
    if (C == 1) begin : single_candidate
      assign round_count = a_count;
      assign round_index = 1'b0;
    end else begin : argmax_tree
      wire [(2*C-1)*CW-1:0] node_count  /*verilator split_var*/;
      wire [(2*C-1)*CIW-1:0] node_index  /*verilator split_var*/;
      for (n = C; n < 2 * C; n = n + 1) begin : leaf
        localparam integer CANDIDATE = n - C;
        assign node_count[(n-1)*CW+:CW] = a_count[(n-C)*CW+:CW];
        assign node_index[(n-1)*CIW+:CIW] = CANDIDATE[CIW-1:0];
      end
      for (n = 1; n < C; n = n + 1) begin : node
        wire [CW-1:0] left_count = node_count[(2*n-1)*CW+:CW];
        wire [CW-1:0] right_count = node_count[2*n*CW+:CW];
        wire          right = right_count > left_count;  // equal counts keep the lower (left) candidate
        assign node_count[(n-1)*CW+:CW] = right ? right_count : left_count;
        assign node_index[(n-1)*CIW+:CIW] = right ? node_index[2*n*CIW+:CIW] : node_index[(2*n-1)*CIW+:CIW];
      end
      assign round_count = node_count[0+:CW];
      assign round_index = node_index[0+:CIW];
    end
  endgenerate

  reg  [  LW-1:0] round_base;  // lane of the first candidate of the round in stage B
  wire [  LW-1:0] round_lane;
  generate
    if (CIW == LW) begin : one_round_lanes
      assign round_lane = round_index;
    end else if (C == 1) begin : one_candidate
      assign round_lane = round_base;
      wire unused_ok = &{1'b0, round_index};
    end else begin : base_plus_index
      assign round_lane = round_base | {{(LW - CIW) {1'b0}}, round_index};
    end
  endgenerate

  reg [CW-1:0] best_count;
  reg [LW-1:0] best_lane;
  always @(posedge clk) begin
    if (rst) begin
      phase <= {(ROUNDS + 1) {1'b0}};
      done <= 1'b0;
      best_count <= {CW{1'b0}};
      best_lane <= {LW{1'b0}};
      round_base <= {LW{1'b0}};
    end else if (start) begin
      phase <= {{ROUNDS{1'b0}}, 1'b1};
      done <= 1'b0;
      best_count <= {CW{1'b0}};
      best_lane <= {LW{1'b0}};
      round_base <= {LW{1'b0}};
    end else begin
      phase <= {phase[ROUNDS-1:0], 1'b0};
      if (phase[ROUNDS]) done <= 1'b1;
      if (merging) begin
        round_base <= round_base + C_STEP[LW-1:0];
        if (round_count > best_count) begin  // strictly greater: earlier (lower) lanes keep ties
          best_count <= round_count;
          best_lane <= round_lane;
        end
      end
    end
  end

  // --- outputs, decoded from the best lane
  reg [AW-1:0] winner_tag;
  integer m;
  always @* begin
    winner_tag = {AW{1'b0}};
    for (m = 0; m < W; m = m + 1) begin
      winner_tag = winner_tag | ({AW{best_lane == m[LW-1:0]}} & tags[m*AW+:AW]);
    end
  end
  wire found = |best_count;
  assign count = best_count;
  assign block = {AW{found}} & (winner_tag >> line_shift);
  generate
    for (i = 0; i < W; i = i + 1) begin : rewrite
      wire [AW-1:0] addr = addr_in[i*AW+:AW];
      assign addr_out[i*AW+:AW] = active[i] & found ? (winner_tag | (addr & ~tag_mask)) : addr;
    end
  endgenerate
endmodule
