#!/usr/bin/env bash
# Regenerates docs/img/quickstart-gtkwave.png, the README's picture: runs `./rdmasim demo` (the quickstart example
# with --vcd) into a temporary directory, opens its wave.vcd in GTKWave with the example's save file
# (traces/examples/quickstart.gtkw) on a virtual X display, and takes a screenshot of the window.
# Needs gtkwave, Xvfb, xdotool and ImageMagick (Debian: apt-get install -y gtkwave xvfb xdotool imagemagick).
# Not run in CI. Usage: docs/img/make-gtkwave-screenshot.sh [OUTPUT.png]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
png="${1:-$root/docs/img/quickstart-gtkwave.png}"
for tool in gtkwave Xvfb xdotool import convert; do
  command -v "$tool" >/dev/null || { echo "make-gtkwave-screenshot: $tool is missing" >&2; exit 1; }
done

work="$(mktemp -d)"
xvfb=""
gtk=""
cleanup() {
  [ -n "$gtk" ] && kill "$gtk" 2>/dev/null || true
  [ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

(cd "$root" && ./rdmasim demo --out "$work/demo" >/dev/null)

# Xvfb picks a free display number and writes it to fd 3; no window manager, so the window has no frame.
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$work/display" >"$work/xvfb.log" 2>&1 &
xvfb=$!
for _ in $(seq 50); do [ -s "$work/display" ] && break; sleep 0.1; done
export DISPLAY=":$(cat "$work/display")"

# GTKWave with its built-in defaults, as a new user sees it: no ~/.gtkwaverc (HOME is the empty work directory)
# and none in the working directory. The save file comes from the source tree, the one the jar ships.
# Started from the output directory so that the title shows "wave.vcd", not a temporary path.
(cd "$work/demo" && HOME="$work" exec gtkwave wave.vcd "$root/traces/examples/quickstart.gtkw" \
  >"$work/gtkwave.log" 2>&1) &
gtk=$!
window="$(timeout 30 xdotool search --sync --onlyvisible --name '^GTKWave - .*wave[.]vcd' | head -n 1)"
sleep 2   # let it draw the waves
# (GTKWave shows a splash window first, hence the full title.) The screen holds nothing but the window: cut it
# out of the root window by its geometry.
eval "$(xdotool getwindowgeometry --shell "$window")"
import -window root -crop "${WIDTH}x${HEIGHT}+${X}+${Y}" +repage "$work/shot.png"
# No timestamps in the PNG, so that an unchanged picture gives an unchanged file.
convert "$work/shot.png" -strip -define png:exclude-chunks=date,time "$png"
echo "wrote $png ($(identify -format '%wx%h' "$png"))"
