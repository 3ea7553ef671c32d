# Reads `bun test` output and prints, for every failed test, its file and the lines bun printed for it
# (the error comes before the "(fail)" line), so the end of a long CI log says what failed and where.
# bun's closing summary lists the failures again, under no file: stop there.
/^[0-9]+ tests? failed:$/ { exit }
/^[^ ()].*\.test\.(ts|tsx):$/ { file = substr($0, 1, length($0) - 1); n = 0; next }
# bun's note on a failure (a hook timeout, for one) follows its "(fail)" line.
/^  \^ / && justFailed { print "    " $0; next }
{ justFailed = 0 }
/^\(pass\)|^\(skip\)|^\(todo\)/ { n = 0; next }
/^\(fail\)/ {
  if (seen[file $0]++) next
  print "--- " file ": " $0
  start = n > 40 ? n - 40 : 0
  for (i = start; i < n; i++) print "    " buf[i]
  n = 0
  justFailed = 1
  next
}
{ buf[n++] = $0 }
