# Installs the TensorFlow Lite oracle for the "oracle" tests: copies
# ../shared/tools/litert (read-only in CI) to the build folder and runs
# `npm ci --ignore-scripts` there. Run by ctest as the setup of the fixture
# "oracle_litert":
#   cmake -DSOURCE=<shared>/tools/litert -DDEST=<build>/oracle/litert -P setup_litert.cmake
# Without Node, npm, the source folder or the registry it reports why and
# succeeds: the oracle tests then skip with that reason (tests/litert_util.h).
# An install whose package-lock.json matches is kept (no network on reruns).
cmake_minimum_required(VERSION 3.16)

foreach(var SOURCE DEST)
  if(NOT ${var})
    message(FATAL_ERROR "setup_litert.cmake needs -D${var}=...")
  endif()
endforeach()

if(NOT EXISTS "${SOURCE}/run_tflite.mjs" OR NOT EXISTS "${SOURCE}/package-lock.json")
  message("oracle_litert: skipped: ${SOURCE} has no run_tflite.mjs and package-lock.json (model corpus absent)")
  return()
endif()
find_program(NPM npm)
find_program(NODE node)
if(NOT NPM OR NOT NODE)
  message("oracle_litert: skipped: node and npm are not installed (packaging/install-deps.sh installs nodejs and npm)")
  return()
endif()

file(MAKE_DIRECTORY "${DEST}")
set(lock_same FALSE)
if(EXISTS "${DEST}/package-lock.json" AND EXISTS "${DEST}/node_modules/@litertjs/core/package.json")
  file(SHA256 "${SOURCE}/package-lock.json" src_hash)
  file(SHA256 "${DEST}/package-lock.json" dest_hash)
  if(src_hash STREQUAL dest_hash)
    set(lock_same TRUE)
  endif()
endif()
file(GLOB files "${SOURCE}/*.mjs" "${SOURCE}/*.json" "${SOURCE}/*.py" "${SOURCE}/*.md")
file(COPY ${files} DESTINATION "${DEST}")
if(lock_same)
  message("oracle_litert: ${DEST} is up to date")
  return()
endif()

execute_process(COMMAND "${NPM}" ci --ignore-scripts --no-audit --no-fund
  WORKING_DIRECTORY "${DEST}" TIMEOUT 600
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  file(REMOVE_RECURSE "${DEST}/node_modules")
  string(SUBSTRING "${err}" 0 600 err)
  message("oracle_litert: skipped: `npm ci --ignore-scripts` failed in ${DEST} (${rc}): ${err}")
  return()
endif()
message("oracle_litert: installed in ${DEST}")
