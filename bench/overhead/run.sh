#!/usr/bin/env bash
# Launcher overhead: `true` started a few hundred times each way, interleaved, median time per
# invocation. Usage: bench/overhead/run.sh BUILD_DIR [ROUNDS [OTHER_BUILD_DIR]]
# (cmake target: bench-overhead). OTHER_BUILD_DIR, an older build (a worktree of another commit),
# adds its full run with the probe on as one more arm, measured in the same rounds.
set -euo pipefail
build=$(cd "${1:?build directory}" && pwd)
rounds=${2:-400}
other=${3:+$(cd "$3" && pwd)}
here=$(cd "$(dirname "$0")" && pwd)
edashim=$build/shim/edashim
work=$(mktemp -d /tmp/edashim-overhead-XXXXXX)
trap 'rm -rf "$work"' EXIT

cc -O2 -static -o "$work/exec_only" "$here/exec_only.c"
cc -O2 -static -o "$work/fork_wait" "$here/fork_wait.c"
cc -O2 -o "$work/driver" "$here/driver.c"
# Every program timed starts from the same page-cache state, that of a binary installed before
# the last reboot: written back and dropped, so the warm-up runs read it from disk. Pages left
# by a compiler or linker that just wrote the file made exec ~0.2 ms slower here, which
# flattered whichever side was built longer ago.
python3 - "$edashim" "$work/exec_only" "$work/fork_wait" "$build/shim/libedashim_probe.so" \
  ${other:+"$other/shim/edashim" "$other/shim/libedashim_probe.so"} <<'PY'
import os, sys
for f in sys.argv[1:]:
    if os.path.exists(f):
        fd = os.open(f, os.O_RDONLY); os.fsync(fd); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)
PY
mkdir -p "$work/shims" "$work/project" "$work/home"
ln -s "$edashim" "$work/shims/true"
other_arm=()
if [ -n "$other" ]; then
  mkdir -p "$work/other"
  ln -s "$other/shim/edashim" "$work/other/true"
  other_arm=("$other (another build): the same with the probe on|PATH=$work/other:/usr/bin:/bin;EDASHIM_ALLOCATOR=mimalloc;EDASHIM_PROFILE=$here/probe_on.toml|$work/other/true")
fi
# A project profile with scratch and logging on; the allocator per arm comes from the environment.
printf 'allocator = "system"\nscratch = true\n' > "$work/project/.edashim.toml"
# probe = false is the user's own setting (an untrusted project file may not turn the probe off).
mkdir -p "$work/home/.config/edashim"
printf 'probe = false\n' > "$work/home/.config/edashim/config.toml"
# A user config that explores on every run (issue 15): the draw, a second plan with the
# candidate, and mimalloc preloaded; compare with the mimalloc line above it.
mkdir -p "$work/explore/edashim"
printf 'probe = false\nexplore = 1.0\nexplore_profiles = ["mimalloc"]\n' > "$work/explore/edashim/config.toml"
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_STATE_HOME=$work/home/.local/state
export PATH=$work/shims:/usr/bin:/bin
cd "$work/project"
true_bin=$(PATH=/usr/bin:/bin type -P true)   # the real one, not our link
mimalloc=$(ls /usr/lib/*/libmimalloc.so.2 | head -1)

"$work/driver" "$rounds" 20 \
  "direct|X=1|$true_bin" \
  "static exec-only wrapper|X=1|$work/exec_only $true_bin" \
  "static fork+exec+wait4 wrapper|X=1|$work/fork_wait $true_bin" \
  "edashim, EDASHIM=off|EDASHIM=off|$work/shims/true" \
  "edashim: profile, tmpfs scratch, log; allocator system|X=1|$work/shims/true" \
  "edashim supervised: the same|EDASHIM_SUPERVISE=1|$work/shims/true" \
  "edashim: the same with mimalloc preloaded|EDASHIM_ALLOCATOR=mimalloc|$work/shims/true" \
  "edashim: the same, exploring every run (explore = 1, candidate mimalloc)|XDG_CONFIG_HOME=$work/explore|$work/shims/true" \
  "edashim: the same with the probe on|EDASHIM_ALLOCATOR=mimalloc;EDASHIM_PROFILE=$here/probe_on.toml|$work/shims/true" \
  "edashim supervised (bench, tune, supervise = true): the same with the probe on|EDASHIM_SUPERVISE=1;EDASHIM_ALLOCATOR=mimalloc;EDASHIM_PROFILE=$here/probe_on.toml|$work/shims/true" \
  "direct with mimalloc preloaded (the allocator's own cost)|LD_PRELOAD=$mimalloc|$true_bin" \
  "${other_arm[@]}" > "$work/raw.tsv"

direct=$(awk -F'\t' 'NR==1 {print $2}' "$work/raw.tsv")
echo "| variant | median µs | p5 | p95 | over direct µs |"
echo "|---|---|---|---|---|"
awk -F'\t' -v d="$direct" '{printf "| %s | %d | %d | %d | %+d |\n", $1, $2, $3, $4, $2 - d}' "$work/raw.tsv"
echo
echo "$rounds rounds after 20 warm-ups, arms shuffled each round; $(nproc) cores, $(uname -r), $(date -u +%Y-%m-%d)."
lines=$(wc -l < "$XDG_STATE_HOME/edashim/runs.jsonl")
echo "(runs logged: $lines)"
