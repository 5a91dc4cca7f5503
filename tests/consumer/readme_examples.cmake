# The embedding examples of docs/tour.md ("Embed", the page README.md's
# quick starts link; passed as -DREADME=) are the consumer tests' programs:
# the lines between the two marker lines of embed.cpp ("// [readme-cpp]") and
# embed.c ("/* [readme-c] */") must appear in that page verbatim, in a fenced block
# of their language, without the function body's two-space indentation.
cmake_minimum_required(VERSION 3.22)

file(READ "${README}" readme)

function(check_example file marker fence)
  file(READ "${file}" text)
  set(marker_line "  ${marker}\n")
  string(FIND "${text}" "${marker_line}" first)
  if(first EQUAL -1)
    message(FATAL_ERROR "${file}: no '${marker}' line")
  endif()
  string(LENGTH "${marker_line}" marker_length)
  math(EXPR start "${first} + ${marker_length}")
  string(SUBSTRING "${text}" ${start} -1 rest)
  string(FIND "${rest}" "${marker_line}" length)
  if(length EQUAL -1)
    message(FATAL_ERROR "${file}: no second '${marker}' line")
  endif()
  string(SUBSTRING "${rest}" 0 ${length} body)
  string(REPLACE "\n  " "\n" body "\n${body}")
  string(SUBSTRING "${body}" 1 -1 body)
  string(FIND "${readme}" "```${fence}\n${body}```" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${README} does not show ${file}'s example verbatim; it should hold this block:\n"
                        "```${fence}\n${body}```")
  endif()
endfunction()

check_example("${CONSUMER_DIR}/embed.cpp" "// [readme-cpp]" "cpp")
check_example("${CONSUMER_DIR}/embed.c" "/* [readme-c] */" "c")
