#!/usr/bin/env bash
# Builds the .deb from a finished build folder, unpacks it into a scratch root
# and runs the installed gdstudio from there.
set -euo pipefail
build="$1"
src="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; exit 1; }
deb=$(ls "$work"/*.deb)
echo "package: $(basename "$deb")"
dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/^ */  depends: /'
dpkg-deb -x "$deb" "$work/root"
for f in usr/bin/gdstudio usr/share/applications/gdstudio.desktop usr/share/icons/hicolor/scalable/apps/gdstudio.svg \
         usr/share/man/man1/gdstudio.1 usr/share/metainfo/io.github.graphdefstudio.gdstudio.metainfo.xml \
         usr/share/mime/packages/gdstudio.xml usr/share/gdstudio/armnn_benchmark.py; do
  [ -e "$work/root/$f" ] || { echo "missing from the package: /$f"; exit 1; }
done
dpkg-deb -f "$deb" Depends | grep -q libprotobuf || { echo "Depends lacks libprotobuf"; exit 1; }
# AudioSpectrogram's FFT (libfftw3-dev at build time).
dpkg-deb -f "$deb" Depends | grep -q libfftw3-double3 || { echo "Depends lacks libfftw3-double3"; exit 1; }
export QT_QPA_PLATFORM=offscreen
"$work/root/usr/bin/gdstudio" --version | head -1 | grep -qx "gdstudio $(sed -n 's/^project(GraphDefStudio VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")" \
  || { echo "installed gdstudio --version is wrong:"; "$work/root/usr/bin/gdstudio" --version; exit 1; }
"$work/root/usr/bin/gdstudio" summarize --in_graph="$src/resources/sample_model.pb" >"$work/summary.txt"
grep -qx "Found 1 possible inputs: (name=input, type=float(1), shape=\[1,64,64,3\]) " "$work/summary.txt" \
  || { echo "installed gdstudio summarize printed:"; cat "$work/summary.txt"; exit 1; }
# The Python module, when the build made one: installed where Debian's python3
# looks, and importable from the unpacked package alone.
if ls "$build"/python/gdstudio*.so >/dev/null 2>&1; then
  site="$work/root/usr/lib/python3/dist-packages"
  ls "$site"/gdstudio*.so >/dev/null 2>&1 || { echo "missing from the package: /usr/lib/python3/dist-packages/gdstudio*.so"; exit 1; }
  [ -e "$site/gdstudio.pyi" ] || { echo "missing from the package: /usr/lib/python3/dist-packages/gdstudio.pyi"; exit 1; }
  dpkg-deb -f "$deb" Recommends | grep -q python3-numpy || { echo "Recommends lacks python3-numpy"; exit 1; }
  python=$(command -v /usr/bin/python3 || command -v python3)
  "$python" -s -c "import sys; sys.path.insert(0, '$site'); import gdstudio
assert gdstudio.__file__.startswith('$site'), gdstudio.__file__
m = gdstudio.load('$src/resources/sample_model.pb')
assert [i.name for i in m.inputs] == ['input'], m.inputs
print('python3 -c \"import gdstudio\": version', gdstudio.__version__)" || { echo "the installed Python module does not import"; exit 1; }
  echo "2 passed, 0 failed"
  exit 0
fi
echo "1 passed, 0 failed"
