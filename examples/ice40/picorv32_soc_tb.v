// Simulates picorv32_soc for +cycles=N clock cycles (default 20000) and prints the LEDs every
// 1/8 of the run and at the end: the simulation workload of bench/suite (iverilog, then vvp).
//   iverilog -o soc.vvp picorv32.v picorv32_soc.v picorv32_soc_tb.v && vvp -n soc.vvp +cycles=100000
`timescale 1ns / 1ps
module picorv32_soc_tb;
  reg clk = 0, resetn = 0;
  wire trap;
  wire [7:0] leds;
  integer cycles, n;

  picorv32_soc soc (.clk(clk), .resetn(resetn), .trap(trap), .leds(leds));

  always #5 clk = !clk;

  initial begin
    if (!$value$plusargs("cycles=%d", cycles)) cycles = 20000;
    repeat (4) @(posedge clk);
    resetn = 1;
    for (n = 1; n <= cycles; n = n + 1) begin
      @(posedge clk);
      if (trap) begin
        $display("trap at cycle %0d", n);
        $finish;
      end
      if (n % (cycles / 8) == 0) $display("cycle %0d leds %0d", n, leds);
    end
    $display("done: %0d cycles, leds %0d", cycles, leds);
    $finish;
  end
endmodule
