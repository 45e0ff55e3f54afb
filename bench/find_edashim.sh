# Sourced by the benchmark scripts: sets `edashim` to the binary to measure, as an absolute path:
# $EDASHIM if set, else this checkout's build, else the installed one. Needs `root` (the checkout).
find_edashim() {
  edashim=${EDASHIM:-}
  if [[ -z $edashim ]]; then
    for c in "$root/build/shim/edashim" "$(command -v edashim || true)"; do
      [[ -n $c && -x $c ]] && { edashim=$c; break; }
    done
  fi
  [[ -n $edashim && -x $edashim ]] || { echo "edashim not found: build it or set EDASHIM=" >&2; exit 2; }
  edashim=$(cd "$(dirname "$edashim")" && pwd)/$(basename "$edashim")
}
