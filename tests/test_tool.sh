#!/usr/bin/env bash
# End-to-end tests of the rdx tool: gen -> sort -> check round trips (raw and --text,
# ascending and descending, in place and to another file), pairs, check's verdicts, and
# every kind of bad input: a non-zero exit, exactly one line on stderr, and the input
# file byte-identical afterwards, with no temporary file left behind.
# Fresh random data each run; the seed is printed with every failure
# (RDX_TEST_SEED=... repeats a run). Usage: test_tool.sh path/to/rdx
set -u

RDX=$(realpath "${1:?usage: test_tool.sh path/to/rdx}")
SEED=${RDX_TEST_SEED:-$(( (RANDOM << 30) ^ (RANDOM << 15) ^ RANDOM ^ $$ ))}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

failures=0
checks=0
fail() {
  failures=$((failures + 1))
  echo "FAIL (seed $SEED): $*" >&2
}
pass() { checks=$((checks + 1)); }

# The keys of a raw file as sorted hex words: equal for two files holding the same keys.
multiset() { od -An -v -tx"$2" -w"$2" "$1" | sort; }
size_of() {
  case $1 in
    u8|i8) echo 1 ;; u16|i16|f16|bf16) echo 2 ;; u32|i32|f32) echo 4 ;; *) echo 8 ;;
  esac
}
next_seed() { SEED_I=$(( (SEED_I * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff )); echo $SEED_I; }
SEED_I=$SEED

# --- round trips: gen -> sort -> check, raw ---
dists=(uniform sorted reverse equal few lowentropy zipf repeat)
i=0
for t in u8 i16 u32 i32 i64 u64 f16 bf16 f32 f64; do
  for d in "${dists[@]}"; do
    n=$(( $(next_seed) % 5000 + 1 ))
    s=$(next_seed)
    k=$(size_of "$t")
    "$RDX" gen -t "$t" -n "$n" --dist "$d" --seed "$s" in.bin || { fail "gen $t $d"; continue; }
    [ "$(stat -c %s in.bin)" -eq $((n * k)) ] || fail "gen $t $d: size $(stat -c %s in.bin) for $n keys"
    if "$RDX" sort -t "$t" in.bin -o out.bin; then
      "$RDX" check -t "$t" out.bin >/dev/null || fail "sort $t $d (n=$n, gen seed $s): output not sorted"
      [ "$(multiset in.bin "$k")" = "$(multiset out.bin "$k")" ] ||
        fail "sort $t $d (n=$n, gen seed $s): output keys differ from the input's"
    else
      fail "sort $t $d (n=$n)"
    fi
    # descending, in place
    cp in.bin rev.bin
    if "$RDX" sort -r -t "$t" rev.bin; then
      "$RDX" check -r -t "$t" rev.bin >/dev/null || fail "sort -r $t $d (n=$n, gen seed $s): not descending"
      [ "$(multiset in.bin "$k")" = "$(multiset rev.bin "$k")" ] || fail "sort -r $t $d: keys differ"
    else
      fail "sort -r $t $d (n=$n)"
    fi
    pass
    i=$((i + 1))
  done
done

# repeat: n / 256 + 1 values, each about 256 times (64-bit keys: no two values alike)
n=$(( $(next_seed) % 60000 + 5000 ))
"$RDX" gen -t u64 -n "$n" --dist repeat --seed "$(next_seed)" in.bin || fail "gen repeat"
distinct=$(od -An -v -tx8 -w8 in.bin | sort -u | wc -l)
[ "$distinct" -le $(( n / 256 + 1 )) ] && [ "$distinct" -ge $(( (n / 256 + 1) * 9 / 10 )) ] ||
  fail "gen repeat: $distinct distinct keys of $n (expected about $(( n / 256 + 1 )))"
pass

# check says "not sorted" (exit 1) for a file that is not, and names the position.
for t in u32 f32 i64; do
  "$RDX" gen -t "$t" -n 4000 --seed "$(next_seed)" in.bin
  out=$("$RDX" check -t "$t" in.bin); rc=$?
  [ $rc -eq 1 ] || fail "check $t on random keys: exit $rc, not 1"
  [[ $out == *"not sorted"*"position"* ]] || fail "check $t: no position in '$out'"
  "$RDX" gen -t "$t" -n 4000 --dist sorted --seed "$(next_seed)" in.bin
  "$RDX" check -t "$t" in.bin >/dev/null || fail "check $t: sorted data called unsorted"
  "$RDX" check -r -t "$t" in.bin >/dev/null; rc=$?
  [ $rc -eq 1 ] || fail "check -r $t on ascending keys: exit $rc, not 1"
  pass
done
printf '1\n2\n7\n3\n9\n' > unsorted.txt
out=$("$RDX" check -t u8 --text unsorted.txt); rc=$?
[ $rc -eq 1 ] && [[ $out == *"position 3"* ]] || fail "check on 1 2 7 3 9: exit $rc, '$out'"
printf -- '-nan\n-inf\n-1.5\n-0\n0\n1e-45\ninf\nnan\n' > order.txt
"$RDX" check -t f32 --text order.txt >/dev/null || fail "check: totalOrder of special floats refused"
printf -- '0\n-0\n' > zeros.txt
"$RDX" check -t f32 --text zeros.txt >/dev/null && fail "check: +0 before -0 accepted"
pass

# --- text mode: the same keys come back, as the same text ---
for t in u8 i16 u32 i64 f16 bf16 f32 f64; do
  n=$(( $(next_seed) % 3000 + 1 ))
  "$RDX" gen --text -t "$t" -n "$n" --dist few --seed "$(next_seed)" in.txt
  "$RDX" gen --text -t "$t" -n "$n" --seed "$(next_seed)" more.txt
  cat more.txt >> in.txt
  if "$RDX" sort --text -t "$t" in.txt -o out.txt; then
    "$RDX" check --text -t "$t" out.txt >/dev/null || fail "sort --text $t: not sorted"
    [ "$(sort in.txt)" = "$(sort out.txt)" ] || fail "sort --text $t: lines differ from the input's"
    [ "$(wc -l < out.txt)" -eq $((2 * n)) ] || fail "sort --text $t: $(wc -l < out.txt) lines for $((2 * n))"
  else
    fail "sort --text $t"
  fi
  pass
done
# raw and text files made from one seed hold the same keys: after sorting, each text
# line read by Python is the raw key at its position (an independent parser); and
# sorting sorted text leaves it byte-identical (printing and reading are inverses)
for t in i32 f32 f64; do
  s=$(next_seed)
  "$RDX" gen -t "$t" -n 2000 --seed "$s" in.bin
  "$RDX" gen -t "$t" -n 2000 --seed "$s" --text in.txt
  if "$RDX" sort -t "$t" in.bin -o out.bin && "$RDX" sort -t "$t" --text in.txt -o out.txt; then
    python3 - "$t" <<'PY' || fail "text $t: lines do not read back as the raw keys"
import struct, sys
fmt = {"i32": "i", "f32": "f", "f64": "d"}[sys.argv[1]]
conv = int if fmt == "i" else float
raw = open("out.bin", "rb").read()
lines = open("out.txt").read().split()
assert len(lines) * struct.calcsize(fmt) == len(raw), "counts differ"
assert b"".join(struct.pack("<" + fmt, conv(x)) for x in lines) == raw, "keys differ"
PY
    cp out.txt again.txt
    "$RDX" sort -t "$t" --text again.txt
    cmp -s out.txt again.txt || fail "sort --text $t: sorting sorted text changed it"
  else
    fail "sort $t raw/text"
  fi
  pass
done
printf '  3\r\n\n-1\n+2\n' > blanks.txt
"$RDX" sort --text -t i8 blanks.txt -o blanks.out &&
  [ "$(cat blanks.out | tr '\n' ' ')" = "-1 2 3 " ] || fail "text with blanks, CRLF, +2: '$(tr '\n' ' ' < blanks.out)'"
pass

# --- pairs: each value moves with its key, stably ---
for t in u32 f64 i16; do
  n=$(( $(next_seed) % 20000 + 2 ))
  k=$(size_of "$t")
  "$RDX" gen -t "$t" -n "$n" --dist few --seed "$(next_seed)" keys.bin
  cp keys.bin keys.orig
  # values: 8-byte input positions, then a copy of the keys (12 bytes per value with u32..)
  python3 - "$n" <<'PY'
import struct, sys
n = int(sys.argv[1])
with open("pos.bin", "wb") as f:
    f.write(struct.pack("<%dQ" % n, *range(n)))
PY
  if "$RDX" sort -t "$t" keys.bin --values pos.bin --value-size 8 --values-out pos.out; then
    if ! "$RDX" check -t "$t" keys.orig >/dev/null && cmp -s pos.bin pos.out; then
      fail "pairs $t: keys were unsorted but the values did not move"
    fi
    python3 - "$t" "$k" "$n" <<'PY' || fail "pairs $t (n=$n): values do not follow keys stably"
import struct, sys
t, k, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
fmt = {"u32": "I", "f64": "Q", "i16": "H"}[t]
orig = struct.unpack("<%d%s" % (n, fmt), open("keys.orig", "rb").read())
keys = struct.unpack("<%d%s" % (n, fmt), open("keys.bin", "rb").read())
pos = struct.unpack("<%dQ" % n, open("pos.out", "rb").read())
assert sorted(pos) == list(range(n)), "positions are not a permutation"
for i in range(n):
    assert keys[i] == orig[pos[i]], "key %d is not the key of its value" % i
    if i and keys[i] == keys[i - 1]:
        assert pos[i] > pos[i - 1], "equal keys out of input order at %d" % i
PY
    "$RDX" check -t "$t" keys.bin >/dev/null || fail "pairs $t: keys not sorted"
  else
    fail "pairs $t"
  fi
  pass
done
# values rewritten in place (no --values-out), 3-byte values
"$RDX" gen -t u16 -n 1000 --seed "$(next_seed)" k16.bin
head -c 3000 /dev/urandom > v3.bin
cp k16.bin k16.orig; cp v3.bin v3.orig
"$RDX" sort -t u16 k16.bin --values v3.bin --value-size 3 || fail "pairs with 3-byte values"
cmp -s v3.bin v3.orig && fail "pairs in place: values file unchanged"
[ "$(stat -c %s v3.bin)" -eq 3000 ] || fail "pairs in place: values file size changed"
pass

# --- bad input: non-zero exit, one line on stderr, input unchanged, no temp file left ---
# expect_bad WANT_RC FILE-TO-WATCH CMD...  (WANT_RC "any" = any non-zero)
expect_bad() {
  local want=$1 watch=$2; shift 2
  local before="" after="" rc lines
  [ -e "$watch" ] && before=$(cksum < "$watch")
  "$@" > bad.out 2> bad.err; rc=$?
  [ -e "$watch" ] && after=$(cksum < "$watch")
  lines=$(wc -l < bad.err)
  if [ $rc -eq 0 ] || { [ "$want" != any ] && [ $rc -ne "$want" ]; }; then
    fail "bad input '$*': exit $rc (want ${want/any/non-zero})"
  elif [ "$lines" -ne 1 ]; then
    fail "bad input '$*': $lines lines on stderr: $(cat bad.err)"
  elif [ "$before" != "$after" ]; then
    fail "bad input '$*': $watch changed"
  elif ls -A | grep -q '\.rdx-'; then
    fail "bad input '$*': temporary file left: $(ls -A | grep '\.rdx-')"
  else
    pass
  fi
}
"$RDX" gen -t u32 -n 100 --seed "$(next_seed)" good.bin
printf '0123456789' > ten.bin
expect_bad any ten.bin "$RDX" sort -t u32 ten.bin
grep -q "ten.bin: size 10 is not a multiple of the 4-byte key size" bad.err || fail "size message: $(cat bad.err)"
expect_bad any ten.bin "$RDX" sort -t u64 ten.bin -o x.bin
expect_bad 2 ten.bin "$RDX" check -t u32 ten.bin
expect_bad any missing.bin "$RDX" sort -t u32 missing.bin
grep -q "missing.bin" bad.err || fail "missing-file message does not name the file"
mkdir -p adir
expect_bad any adir "$RDX" sort -t u32 adir
expect_bad 2 good.bin "$RDX" sort -t u24 good.bin
expect_bad 2 good.bin "$RDX" sort -t u32 --frobnicate good.bin
expect_bad 2 good.bin "$RDX" sort -t u32 -Z good.bin
expect_bad 2 good.bin "$RDX" sort good.bin
expect_bad 2 good.bin "$RDX" frobnicate good.bin
expect_bad 2 good.bin "$RDX" check -t u32 --frobnicate good.bin
expect_bad 2 good.bin "$RDX" gen -t u32 -n many good.bin
expect_bad 2 good.bin "$RDX" gen -t u32 -n 10 --dist gaussian good.bin
expect_bad 2 good.bin "$RDX" bench --frobnicate
printf '1\n2\nthree\n4\n' > word.txt
expect_bad any word.txt "$RDX" sort -t u32 --text word.txt
grep -q "line 3" bad.err || fail "text error does not name line 3: $(cat bad.err)"
expect_bad 2 word.txt "$RDX" check -t u32 --text word.txt
for case in "u8 256" "u8 -1" "i8 -129" "i16 40000" "u32 4294967296" "i64 9223372036854775808" \
            "f16 70000" "bf16 1e39" "f32 1e39" "f64 1e309" "u16 1.5" "f32 1,5"; do
  set -- $case
  printf '1\n%s\n3\n' "$2" > range.txt
  expect_bad any range.txt "$RDX" sort -t "$1" --text range.txt
  grep -q "line 2" bad.err || fail "$1 '$2': message does not name line 2: $(cat bad.err)"
done
printf '1234567890ab' > vals12.bin   # 3 values of 4 bytes for 100 keys
expect_bad any good.bin "$RDX" sort -t u32 good.bin --values vals12.bin --value-size 4
[ "$(cksum < vals12.bin)" = "$(printf '1234567890ab' | cksum)" ] || fail "values file changed on a count mismatch"
expect_bad any good.bin "$RDX" sort -t u32 good.bin --values vals12.bin --value-size 5
expect_bad 2 good.bin "$RDX" sort -t u32 good.bin --values vals12.bin
expect_bad any good.bin "$RDX" sort -t u32 good.bin --end-bit 33
grep -q "end_bit" bad.err || fail "library error text not shown: $(cat bad.err)"
expect_bad any good.bin "$RDX" sort -t u32 good.bin --radix-bits 9
expect_bad any good.bin "$RDX" sort -t u32 good.bin -o no/such/dir/out.bin
if "$RDX" --version | grep -q "cuda usable"; then
  cp good.bin gpu.bin
  "$RDX" sort -t u32 --backend cuda gpu.bin && "$RDX" check -t u32 gpu.bin >/dev/null ||
    fail "sort --backend cuda on a usable GPU"
  pass
else
  expect_bad any good.bin "$RDX" sort -t u32 --backend cuda good.bin
  grep -q "cuda" bad.err || fail "no-GPU message does not say cuda: $(cat bad.err)"
fi

# --- help and version ---
for c in "" sort gen check bench; do
  "$RDX" $c --help | grep -q "usage: rdx" || fail "rdx $c --help"
  pass
done
"$RDX" --version | grep -q "^rdx [0-9]" || fail "rdx --version"

# --- bench: runs every sorter on small inputs and verifies each result ---
if "$RDX" bench -t u8,i16,f32,u64/u64,f16/u8 -n 1000,2^12 --repeat 1 --csv b.csv > bench.out; then
  grep -q "all results verified" bench.out || fail "bench: no verification line"
  grep -q "^rdx cpu " bench.out || fail "bench: no rdx cpu row"
  grep -q "^std::sort " bench.out || fail "bench: no std::sort row"
  [ "$(wc -l < b.csv)" -gt 10 ] || fail "bench: CSV has $(wc -l < b.csv) lines"
else
  fail "bench exited non-zero: $(tail -3 bench.out)"
fi
pass

echo "test_tool.sh: $checks passed, $failures failed (seed $SEED)"
[ $failures -eq 0 ]
