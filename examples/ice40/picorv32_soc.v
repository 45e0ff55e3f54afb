// A minimal system around PicoRV32, so that a real core goes through synth_ice40, placement and
// routing with a handful of pins: 1 KiB of block RAM holding a five-instruction program, and a
// register of eight LEDs at address 0x1000. picorv32.v itself is not in this repository: the
// Makefile takes its path (make DESIGN=/path/to/picorv32.v).
//
// The program counts in x2 and stores it to the LEDs, forever:
//   0x00  addi x2, x0, 0
//   0x04  lui  x1, 1          x1 = 0x1000
//   0x08  addi x2, x2, 1
//   0x0c  sw   x2, 0(x1)
//   0x10  jal  x0, -8         back to 0x08
module picorv32_soc (
    input  wire       clk,
    input  wire       resetn,
    output wire       trap,
    output reg  [7:0] leds
);
  // Held in reset for the first cycles after configuration, whatever the pin does.
  reg [3:0] por = 0;
  always @(posedge clk) if (!por[3]) por <= por + 4'd1;
  wire rst_n = resetn && por[3];

  wire        mem_valid, mem_instr;
  reg         mem_ready;
  wire [31:0] mem_addr, mem_wdata;
  wire [ 3:0] mem_wstrb;
  reg  [31:0] mem_rdata;

  picorv32 #(.ENABLE_COUNTERS(0), .ENABLE_COUNTERS64(0)) cpu (
      .clk(clk), .resetn(rst_n), .trap(trap),
      .mem_valid(mem_valid), .mem_instr(mem_instr), .mem_ready(mem_ready),
      .mem_addr(mem_addr), .mem_wdata(mem_wdata), .mem_wstrb(mem_wstrb), .mem_rdata(mem_rdata));

  reg [31:0] mem [0:255];
  integer i;
  initial begin
    for (i = 0; i < 256; i = i + 1) mem[i] = 32'h0000_0013;  // nop
    mem[0] = 32'h0000_0113;
    mem[1] = 32'h0000_10b7;
    mem[2] = 32'h0011_0113;
    mem[3] = 32'h0020_a023;
    mem[4] = 32'hff9f_f06f;
    leds = 8'd0;
  end

  always @(posedge clk) begin
    mem_ready <= 1'b0;
    if (mem_valid && !mem_ready) begin
      mem_ready <= 1'b1;  // every address answers: an unmapped one reads the RAM's alias
      if (mem_addr == 32'h0000_1000) begin
        if (mem_wstrb[0]) leds <= mem_wdata[7:0];
      end else begin
        mem_rdata <= mem[mem_addr[9:2]];
        if (mem_wstrb[0]) mem[mem_addr[9:2]][ 7: 0] <= mem_wdata[ 7: 0];
        if (mem_wstrb[1]) mem[mem_addr[9:2]][15: 8] <= mem_wdata[15: 8];
        if (mem_wstrb[2]) mem[mem_addr[9:2]][23:16] <= mem_wdata[23:16];
        if (mem_wstrb[3]) mem[mem_addr[9:2]][31:24] <= mem_wdata[31:24];
      end
    end
  end
endmodule
