// A stand-in tool for behaviour no real tool shows on demand: exit codes, signals, stdio.
int main(void) { return 0; }
