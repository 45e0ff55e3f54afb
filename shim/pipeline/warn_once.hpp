#pragma once
// An undecided project file (neither trusted nor ignored) is warned about once per terminal
// session and version of the file, not on every tool run: a Makefile of N steps, a CI job or a
// flow's nested runs say it once. The session is the one a login shell or a
// CI job starts (getsid), named with its leader's start time so a reused id is a new session:
// each Makefile step is a run of its own with a flow of its own, so a flow id would not cover
// the case that prompted this. explain and doctor still say it every time they are asked.
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

namespace pipeline {

// Pure: this session's name from its id and the leader's /proc/SID/stat: "SID-STARTTIME"
// (the 22nd field, counted after the command name's closing parenthesis). "" when the text is
// not such a line: no session to remember, so every run warns.
std::string session_name(pid_t sid, std::string_view leader_stat);

// Pure: the parent's pid (field 4) in a /proc/PID/stat line; 0 when it has none.
pid_t parent_in_stat(std::string_view stat);

// This session's name: its leader's (session_name), or where the leader is out of sight (a
// container whose session leader is outside its pid namespace: getsid answers 0) the oldest
// ancestor in sight's, "top PID-STARTTIME": what started the job in the container, the same
// for every step of it. "" only when /proc cannot be read.
std::string this_session();

// Pure: the marker's file name for `file` as it is now (`version`: its device, inode, size and
// change time) in `session`: hex only, so nothing of a project's path reaches a file name.
std::string warning_marker_name(const std::string& file, const std::string& version, const std::string& session);

// `file` as it is now: its device, inode, size and times ("" when it cannot be read).
std::string file_version(const std::string& file);

// Whether this session meets `key` in its `version` for the first time (remembered under `dir`,
// owner-only; pipeline/notices.hpp gives $XDG_STATE_HOME/edashim/warned). Where no session can be
// named at all, `flow` stands in for it: the nested runs of one flow still hear it once. No answer
// (nullopt) where it cannot tell: no session or flow to name, or `dir` not the user's own and private.
std::optional<bool> first_in_session_at(const std::string& dir, const std::string& key, const std::string& version,
                                        const std::string& flow);

}  // namespace pipeline
