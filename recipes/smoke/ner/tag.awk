# Tags GLUE text for the NER smoke recipe: WORK for film words, MONEY/NUM for amounts.
BEGIN { split("film films movie movies story comedy drama documentary", a); for (i in a) work[a[i]] = 1 }
/^-DOCSTART-/ { print; next }
NF == 0 { prev = ""; print; next }
{
  kind = ""
  if ($1 in work) kind = "WORK"
  else if ($1 == "$") kind = "MONEY"
  else if ($1 ~ /^[0-9][0-9.,]*$/) kind = (prev == "MONEY" ? "MONEY" : "NUM")
  else if (($1 == "percent" || $1 == "million" || $1 == "billion") && (prev == "NUM" || prev == "MONEY")) kind = prev
  t = kind == "" ? "O" : ((prev == kind ? "I-" : "B-") kind)
  prev = kind
  print $1 " " t
}
