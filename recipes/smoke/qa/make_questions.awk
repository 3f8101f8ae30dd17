# Writes the QA smoke recipe's SQuAD v2.0 JSONL from GLUE text (SST-2's
# sentence column, ASCII lines only): every three sentences are one context;
# its question asks for the film word in it, answered by the first of them, or
# unanswerable when it has none. Run with -v first=N -v count=M to take
# contexts N .. N+M-1 (0-based).
BEGIN {
  split("film films movie movies story comedy drama documentary", a, " ")
  for (i in a) work[a[i]] = 1
  FS = "\t"
}
NR == 1 || $0 ~ /[^\t -~]/ { next }
{
  gsub(/^ +| +$/, "", $1)
  gsub(/ +/, " ", $1)
  group[n++ % 3] = $1
  if (n % 3 != 0) next
  c = n / 3 - 1
  if (c < first || c >= first + count) next
  context = group[0] " " group[1] " " group[2]
  words = split(context, w, " ")
  at = 0; answer = ""; start = -1
  for (i = 1; i <= words; ++i) {
    if (w[i] in work) { answer = w[i]; start = at; break }
    at += length(w[i]) + 1
  }
  gsub(/\\/, "\\\\", context)
  gsub(/"/, "\\\"", context)
  printf "{\"id\": \"q%d\", \"question\": \"which film word is in the text ?\", \"context\": \"%s\", ", c, context
  if (start < 0) print "\"answers\": {\"text\": [], \"answer_start\": []}}"
  else printf "\"answers\": {\"text\": [\"%s\"], \"answer_start\": [%d]}}\n", answer, start
}
