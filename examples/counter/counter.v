// The example edashim's installer synthesizes: an 8-bit counter with enable and load,
// feeding a small ALU, so that yosys runs a real flow (and ABC) in about a second.
module counter (
    input  wire       clk,
    input  wire       rst,
    input  wire       en,
    input  wire       load,
    input  wire [7:0] din,
    input  wire [1:0] op,
    output reg  [7:0] count,
    output reg  [7:0] result
);
  always @(posedge clk) begin
    if (rst) count <= 8'd0;
    else if (load) count <= din;
    else if (en) count <= count + 8'd1;
  end

  always @(posedge clk) begin
    case (op)
      2'd0: result <= count + din;
      2'd1: result <= count - din;
      2'd2: result <= count ^ din;
      2'd3: result <= count * din[3:0];
    endcase
  end
endmodule
