# edashim's extra site configuration for Environment Modules (4.3 and later), set by edashim's
# module (../modulefiles/tcl/edashim) as MODULES_SITECONFIG while it is loaded. Environment
# Modules has no path priority: a tool's module loaded after edashim's would put the tool's own
# bin ahead of edashim's links, and typing the tool's name would run it without edashim. So
# before each module command writes the shell's new environment (renderSettings), the links
# directory edashim's module named (EDASHIM_MODULE_LINKS) is moved back to the front of PATH,
# where it is on PATH at all. Only the order changes: every directory stays, and Modules' own
# reference counts, kept per directory, still hold when a module is unloaded.
#
# A site's own extra configuration, set before edashim's module was loaded, is read first
# (EDASHIM_MODULE_NEXT_SITECONFIG); edashim's module restores it when unloaded. Where the site
# locks extra_siteconfig, this file is not read: `edashim doctor` then says the links are
# shadowed, with the fix (load edashim's module again).
if {[info exists ::env(EDASHIM_MODULE_NEXT_SITECONFIG)] && [file readable $::env(EDASHIM_MODULE_NEXT_SITECONFIG)]} {
  source $::env(EDASHIM_MODULE_NEXT_SITECONFIG)
}

proc ::edashim_links_first {args} {
  if {![info exists ::env(EDASHIM_MODULE_LINKS)] || ![info exists ::env(PATH)]} return
  set links $::env(EDASHIM_MODULE_LINKS)
  set parts [split $::env(PATH) :]
  set at [lsearch -exact $parts $links]
  if {$at <= 0} return
  set ::env(PATH) [join [linsert [lreplace $parts $at $at] 0 $links] :]
}

# A version of Modules without renderSettings goes without: doctor still tells.
catch {trace add execution renderSettings enter ::edashim_links_first}
