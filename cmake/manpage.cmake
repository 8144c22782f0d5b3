# manpage.cmake -- memplan.1 from `memplan --help`, so the man page lists the
# commands and options of the command table and cannot drift from it.
#   cmake -DMEMPLAN=path/to/memplan -DVERSION=x.y.z -DOUT=memplan.1 -P manpage.cmake
execute_process(COMMAND "${MEMPLAN}" --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "memplan --help exited ${rc}")
endif()
# roff: a backslash is \e; a line starting with '.' or '\'' would be a request.
string(REPLACE "\\" "\\e" help "${help}")
string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
file(WRITE "${OUT}" ".TH MEMPLAN 1 \"\" \"memplan ${VERSION}\" \"User Commands\"\n"
  ".SH NAME\nmemplan \\- how much memory an ONNX model needs while it runs, and why\n"
  ".SH SYNOPSIS\n.B memplan\n\\fICOMMAND\\fR [\\fIoptions\\fR]\n"
  ".SH DESCRIPTION\nThe text of \\fBmemplan \\-\\-help\\fR:\n.PP\n.nf\n${help}.fi\n"
  ".SH SEE ALSO\nThe README and docs/semantics.md of onnx-memplan.\n")
