#!/usr/bin/env bash
# issue 28 item 6: a configuration error is never silent, an undecided project file's warning is
# never repeated N times, a file the user chose to ignore never fails doctor.
source "$(dirname "$0")/lib.sh"

test_placeholder() { :; }

run_suite "$@"
