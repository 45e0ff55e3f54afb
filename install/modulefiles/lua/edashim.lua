-- edashim's module for Lmod: the tree's links first on PATH, and kept first (priority) when a
-- tool's module loaded after this one prepends the tool's own bin (which would otherwise run
-- the tool without edashim); the tree's bin for the `edashim` command. docs/install.md says more.
-- The tree is found from this file's own place, <prefix>/share/edashim/modulefiles/lua/, so the
-- tree may be mounted anywhere. A copy kept elsewhere: set prefix to the tree's directory.
local prefix = myFileName():match("^(.*)/share/edashim/modulefiles/lua/[^/]+$")
if not prefix then
  LmodError("edashim: ", myFileName(), " is not in <tree>/share/edashim/modulefiles/lua; set prefix in it to the tree's directory")
end
whatis("Name: edashim")
whatis("Description: runs EDA tools with a modern allocator, and records each run")
help([[
Puts edashim's links first on PATH: typing a linked tool's name (yosys, ...) runs it through
edashim. Lmod keeps them ahead of any tool module loaded after this one. See: edashim doctor
]])
prepend_path("PATH", pathJoin(prefix, "bin"))
-- Above every plain prepend (priority 0), whichever module makes it later.
prepend_path{"PATH", pathJoin(prefix, "lib/edashim/shims"), priority = 100}
