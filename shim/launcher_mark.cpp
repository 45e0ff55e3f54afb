// Defines the mark that tells the probe library it is inside edashim (probe/launcher_mark.h).
#define EDASHIM_DEFINES_LAUNCHER_MARK
#include "probe/launcher_mark.h"

extern "C" __attribute__((visibility("default"), used)) const char edashim_launcher_mark = 1;
