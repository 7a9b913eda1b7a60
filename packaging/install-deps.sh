#!/usr/bin/env bash
# Installs the Debian 12 packages GraphDef Studio builds and tests with.
# Idempotent: quiet and quick when everything is present.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config
  # Rebuilds of unchanged sources come from its cache (CMakeLists.txt uses it when present).
  ccache
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libgl-dev
  libprotobuf-dev protobuf-compiler
  libgraphviz-dev
  libeigen3-dev libgemmlowp-dev libdnnl-dev ocl-icd-opencl-dev
  libjpeg-dev libpng-dev libfftw3-dev
  nlohmann-json3-dev
  libflatbuffers-dev flatbuffers-compiler
  # Keras models: HDF5 (.h5 models, the weights inside .keras) and libzip (the .keras archive).
  libhdf5-dev libzip-dev
  libgtest-dev libgmock-dev
  python3-numpy python3-protobuf
  # The Keras tests write their synthetic .keras/.h5 files with h5py (tests/tools/keras_layers.py).
  python3-h5py
  # The Python module (pybind11) and its tests (pytest).
  pybind11-dev python3-dev python3-pytest
  xvfb xauth
  # cpack -G DEB (the package_deb test) runs `file` to find shared-library dependencies.
  file
  # Arm NN 20.08 with its TensorFlow Lite parser: the independent runtime the .tflite tests check against.
  python3-pyarmnn libarmnn-cpuref-backend22 libarmnntfliteparser-dev
  # Device runners: the OpenSSH client (ssh, scp) and adb at run time; the tests start sshd on 127.0.0.1.
  openssh-client openssh-server adb
)

# Node.js runs the TensorFlow.js reference (../shared/tools/reference, once `npm ci` has run there) and
# TensorFlow Lite itself (LiteRT.js, ../shared/tools/litert, installed by the oracle_litert test with npm).
# A Node.js from outside Debian (NodeSource's nodejs bundles npm and conflicts with Debian's npm package)
# serves as well, so these are asked for only when the command is missing.
declare -A BY_COMMAND=([node]=nodejs [npm]=npm)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
for cmd in "${!BY_COMMAND[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("${BY_COMMAND[$cmd]}")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install-deps.sh: these Debian packages are missing: ${missing[*]}" >&2
    echo "Installing them needs root: run this script as root (su -c ./packaging/install-deps.sh)," >&2
    echo "or install sudo first (as root: apt-get install sudo) and add yourself to the sudo group." >&2
    exit 1
  fi
  SUDO="sudo"
fi
echo "Installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
