// A two-digit BCD counter with its properties: each digit stays 0-9, and the low digit wraps
// only when the high one steps. Checked by examples/formal/Makefile (yosys-smtbmc and a solver).
module bcd_counter (
    input  wire       clk,
    input  wire       rst,
    input  wire       en,
    output reg  [3:0] lo,
    output reg  [3:0] hi
);
  initial begin
    lo = 0;
    hi = 0;
  end
  always @(posedge clk) begin
    if (rst) begin
      lo <= 0;
      hi <= 0;
    end else if (en) begin
      if (lo == 9) begin
        lo <= 0;
        hi <= (hi == 9) ? 4'd0 : hi + 4'd1;
      end else begin
        lo <= lo + 4'd1;
      end
    end
  end

`ifdef FORMAL
  reg past_valid = 0;
  always @(posedge clk) past_valid <= 1;
  always @(*) begin
    assert (lo <= 9);
    assert (hi <= 9);
  end
  always @(posedge clk) begin
    if (past_valid && !$past(rst) && $past(en) && $past(lo) == 9) assert (lo == 0);
    if (past_valid && !$past(rst) && !$past(en)) assert (lo == $past(lo) && hi == $past(hi));
    // Reachable: a trace to 12 must exist (a cover, so the asserts are not vacuously true).
    cover (hi == 1 && lo == 2);
  end
`endif
endmodule
