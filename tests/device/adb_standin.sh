#!/bin/sh
# A stand-in for Android's adb in the device tests (no phone can be attached
# where the tests run): it serves a local folder as the device's file system
# for the paths under /data/local/tmp, and logs every call, one per line, to
# $ADB_STANDIN_LOG so a test can check the command sequence. It answers
# `-s SERIAL` for $ADB_STANDIN_SERIAL only, as adb does for an unknown serial.
#   adb [-s SERIAL] push LOCAL... REMOTE_FOLDER/
#   adb [-s SERIAL] pull REMOTE LOCAL
#   adb [-s SERIAL] shell COMMAND
root="${ADB_STANDIN_ROOT:?}"
printf "adb %s\n" "$*" >> "${ADB_STANDIN_LOG:?}"
if [ "$1" = "-s" ]; then
  if [ "$2" != "${ADB_STANDIN_SERIAL:-}" ]; then
    echo "adb: device '$2' not found" >&2
    echo "error: device '$2' not found" >&2
    exit 1
  fi
  shift 2
fi
# Device paths to local ones (a path starting a word), and back in what
# the device prints (pwd, command -v), so the caller sees device paths only.
map() { printf '%s' "$1" | sed "s#\(^\|[ =']\)/data/local/tmp#\1$root/data/local/tmp#g"; }
command="$1"
shift
case "$command" in
  push)
    n=$#
    i=1
    dest=""
    for a in "$@"; do
      [ $i -eq $n ] && dest=$(map "$a")
      i=$((i + 1))
    done
    i=1
    for a in "$@"; do
      if [ $i -lt $n ]; then
        cp "$a" "$dest" || exit 1
        echo "$a: 1 file pushed, 0 skipped."
      fi
      i=$((i + 1))
    done
    ;;
  pull)
    cp "$(map "$1")" "$2" || exit 1
    echo "$1: 1 file pulled, 0 skipped."
    ;;
  shell)
    status_file=$(mktemp)
    { sh -c "$(map "$*")"; echo $? > "$status_file"; } | sed "s#$root/data/local/tmp#/data/local/tmp#g"
    status=$(cat "$status_file")
    rm -f "$status_file"
    exit "$status"
    ;;
  *)
    echo "adb stand-in: unsupported command '$command'" >&2
    exit 1
    ;;
esac
