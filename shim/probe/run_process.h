#pragma once
/* Whether this process is the run's own: the one edashim became, whose end finishes the run
 * (probe.c). For the exec hook (hook.c): the run's own process starting the run's tool again (a
 * site's wrapper named like the tool: `exec /usr/bin/yosys "$@"`) continues the run. */
int edashim_in_run_process(void);
