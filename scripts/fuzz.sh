#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer, one target after the other:
#   ndef      the NDEF decoder, the Type 2 TLV walker and the JSON parser   (Fuzz/NDEFFuzz.swift)
#   config    the config loader: libyaml, its limits, the specs, every action plugin (Fuzz/ConfigFuzz.swift)
#   template  the template parser and renderer                              (Fuzz/TemplateFuzz.swift)
#   spool     the spool's bookkeeping: names, entry counts, `delivered`     (Fuzz/SpoolFuzz.swift)
#   control   the control socket's request lines, served by a real session (Fuzz/ControlFuzz.swift)
#   mqttin    an mqtt input's payload parsers, intake bounds and signature check (Fuzz/MQTTInputFuzz.swift)
#   command   MQTT write-command payloads: token, request, records          (Fuzz/CommandFuzz.swift)
# FUZZ_TARGETS picks some (default: all, in that order); FUZZ_SECONDS is the time
# per target (default 600). The targets are compiled by swiftc outside Package.swift,
# with -sanitize=fuzzer,address, into .build/fuzz. Each corpus lives in fuzz-corpus/<target>
# (seeded on every run from the test vectors, the example configs and a few hostile
# inputs written here); crashes land in fuzz-corpus/crashes/<target>-*. At the end a table
# gives executions, executions per second and corpus size per target; the exit status is
# 1 when any target found a crash.
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS="${FUZZ_SECONDS:-600}"
FUZZ_TARGETS="${FUZZ_TARGETS:-ndef config template spool control mqttin command}"
build=.build/fuzz
crashes=fuzz-corpus/crashes
mkdir -p "$build" "$crashes"

flags=(-O -sanitize=fuzzer,address -use-ld=lld -parse-as-library -swift-version 6 -package-name tagrouter -I "$build")
for module_map in Sources/C*/module.modulemap; do flags+=(-I "$(dirname "$module_map")"); done

# The modules each module imports among these: its Package.swift dependencies, C libraries aside (FuzzModuleMapTests checks).
declare -A imports=(
  [OrderedJSON]="" [NDEF]="OrderedJSON" [SystemKit]="OrderedJSON" [Lifecycle]="SystemKit OrderedJSON"
  [TagCore]="OrderedJSON" [TagRuntime]="TagCore OrderedJSON SystemKit Lifecycle" [TagCrypto]=""
  [SecureTags]="TagCrypto TagCore SystemKit OrderedJSON" [TagRouter]="OrderedJSON SystemKit Lifecycle TagCore TagRuntime SecureTags"
  [ChildProcess]="SystemKit" [MQTTPlugin]="TagRouter OrderedJSON SystemKit Lifecycle TagCore TagRuntime NDEF TagCrypto"
  [ShellPlugin]="TagRouter OrderedJSON SystemKit TagCore ChildProcess" [OpenURLPlugin]="TagRouter OrderedJSON SystemKit ChildProcess"
  [WebhookPlugin]="TagRouter OrderedJSON SystemKit TagCrypto" [ExecPlugin]="TagRouter OrderedJSON SystemKit Lifecycle TagCore ChildProcess"
)

# Compiles the Swift files under folder $2 into module $1 ($build/$1.o and its .swiftmodule),
# unless the object is newer than every one of them and than each module it imports: code
# compiled against an older layout of an imported module crashes at run time (seen: the
# webhook plugin's spec, against a TagRouter rebuilt after it).
build_module() {
  local name=$1 folder=$2
  local sources newer
  mapfile -t sources < <(find "$folder" -name '*.swift' | sort)
  if [ -f "$build/$name.o" ]; then
    newer=$(find "$folder" -name '*.swift' -newer "$build/$name.o" -print -quit)
    for module in ${imports[$name]}; do
      if [ "$build/$module.o" -nt "$build/$name.o" ]; then newer=$module; fi
    done
    if [ -z "$newer" ]; then return; fi
  fi
  echo "fuzz: compiling $name"
  swiftc "${flags[@]}" -module-name "$name" -emit-module -emit-module-path "$build/$name.swiftmodule" \
    -emit-object -wmo -o "$build/$name.o" "${sources[@]}"
  touch "$build/$name.o"  # swiftc leaves an unchanged object's time as it was
}

# Links the entry point Fuzz/$2 with the given module objects into $build/$1.
link_fuzzer() {
  local binary=$1 entry=$2; shift 2
  local objects=()
  for module in "$@"; do objects+=("$build/$module.o"); done
  echo "fuzz: linking $binary"
  swiftc "${flags[@]}" "Fuzz/$entry" "${objects[@]}" -lyaml -lmosquitto -lcrypto -o "$build/$binary"
}

# Links the entry point Fuzz/$3 and the Swift files under folder $4 as one module $2 (the
# entry point reaches their internals) with the module objects named next into $build/$1;
# the arguments after `--` go to the linker.
link_as_one_module() {
  local binary=$1 module=$2 entry=$3 folder=$4
  shift 4
  local sources objects=()
  mapfile -t sources < <(find "$folder" -name '*.swift' | sort)
  while [ $# -gt 0 ] && [ "$1" != -- ]; do objects+=("$build/$1.o"); shift; done
  [ $# -gt 0 ] && shift
  echo "fuzz: linking $binary"
  swiftc "${flags[@]}" -module-name "$module" "Fuzz/$entry" "${sources[@]}" "${objects[@]}" "$@" -o "$build/$binary"
}

# Writes file $2 into corpus folder $1 (named by its hash, so seeds never pile up twice).
seed() {
  local corpus=$1 text=$2
  printf '%s' "$text" >"$corpus/seed-$(printf '%s' "$text" | sha1sum | cut -c1-16)"
}

prepare_ndef() {
  build_module OrderedJSON Sources/OrderedJSON
  # NDEF and the entry point form one module (the entry point reaches NDEF's internals).
  local sources
  mapfile -t sources < <(find Sources/NDEF -name '*.swift' | sort)
  echo "fuzz: linking ndef-fuzz"
  swiftc "${flags[@]}" Fuzz/NDEFFuzz.swift "${sources[@]}" "$build/OrderedJSON.o" -o "$build/ndef-fuzz"
  # Every vector's bytes (messages and Type 2 images).
  python3 - "$1" <<'PY'
import glob, json, os, sys, hashlib
out = sys.argv[1]
for path in glob.glob("Tests/NDEFTests/Vectors/*.json"):
    for vector in json.load(open(path)):
        for key in ("message_hex", "memory_hex", "ndef_hex"):
            text = vector.get(key)
            if text:
                data = bytes.fromhex(text)
                with open(os.path.join(out, hashlib.sha1(data).hexdigest()), "wb") as f:
                    f.write(data)
PY
}

build_router_modules() {
  build_module OrderedJSON Sources/OrderedJSON
  build_module SystemKit Sources/SystemKit
  build_module Lifecycle Sources/Lifecycle
  build_module TagCore Sources/TagCore
  build_module TagRuntime Sources/TagRuntime
  build_module TagCrypto Sources/TagCrypto
  build_module SecureTags Sources/SecureTags
  build_module TagRouter Sources/TagRouter
}

prepare_config() {
  build_router_modules
  build_module ChildProcess Sources/ChildProcess
  build_module NDEF Sources/NDEF  # the MQTT plugin encodes NDEF for `write` requests
  local plugins=(MQTTPlugin ShellPlugin OpenURLPlugin WebhookPlugin ExecPlugin)
  for plugin in "${plugins[@]}"; do build_module "$plugin" "Plugins/$plugin"; done
  link_fuzzer config-fuzz ConfigFuzz.swift OrderedJSON SystemKit Lifecycle NDEF TagCore TagRuntime TagCrypto SecureTags TagRouter ChildProcess "${plugins[@]}"
  local corpus=$1
  for file in config/examples/*.yaml config/tagrouter.yaml Sources/TagRouterDaemon/Resources/tagrouter.yaml; do
    [ -f "$file" ] && cp "$file" "$corpus/seed-$(basename "$file")"
  done
  # The limits, each just crossed: an alias bomb, deep nesting, many aliases.
  seed "$corpus" $'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n'
  seed "$corpus" "routes: $(printf '[%.0s' {1..70})$(printf ']%.0s' {1..70})"
  seed "$corpus" $'x: &x 1\ny: ['"$(printf '*x,%.0s' {1..1001})"$']\n'
  seed "$corpus" $'routes:\n  - name: r\n    match: {uri: "https://*", text: "/^a.*$/"}\n    actions:\n      - log: "{{text | upper}}"\n      - webhook: {url: "https://h.example/{{env.HOOK_ID}}", retry: {attempts: 3}}\n'
}

prepare_template() {
  build_router_modules
  link_fuzzer template-fuzz TemplateFuzz.swift OrderedJSON SystemKit Lifecycle TagCore TagRuntime TagCrypto SecureTags TagRouter
  local corpus=$1
  seed "$corpus" 'p/{{text}}'
  seed "$corpus" '{{ tag.uid | upper }}-{{ndef.records.0.text|default: "none"}}'
  seed "$corpus" 'https://ha.local/api/webhook/{{env.HOOK_ID}}?u={{uri | urlencode}}'
  seed "$corpus" '{{json}} {{env.UNSET | default: "x"}} {{route | json}}'
  seed "$corpus" $'{{text}}\x00{"text":"a\\u0085b","tag":{"uid":"01"}}'
}

prepare_spool() {
  # SpoolBookkeeping is internal to TagRouter and imports nothing: it and the entry point form one module.
  echo "fuzz: linking spool-fuzz"
  swiftc "${flags[@]}" Fuzz/SpoolFuzz.swift Sources/TagRouter/Routing/SpoolBookkeeping.swift -o "$build/spool-fuzz"
  local corpus=$1
  # delivered on the first line (- for none), then name[:entries] per file.
  seed "$corpus" $'00000000000000000002\n00000000000000000001.json:3\n00000000000000000004.json:2\n.00000000000000000006.json.tmp'
  seed "$corpus" $'18446744073709551615\n18446744073709551615.json:1\n00000000000000000001.json:10'
  seed "$corpus" $'7\n00000000000000000001.json:1\n00000000000000000002.json:1\n00000000000000000003.json:x'
  seed "$corpus" $'-\n04611686018427387904.json:3\n00000000000000000002.json:2\n00000000000000000001.json:4\n7.json:1'
}

prepare_control() {
  build_router_modules
  build_module NDEF Sources/NDEF
  # DaemonControl and the entry point form one module (the entry point serves a ControlSession).
  link_as_one_module control-fuzz DaemonControl ControlFuzz.swift Sources/DaemonControl OrderedJSON SystemKit Lifecycle NDEF TagCore TagRuntime TagCrypto SecureTags TagRouter -- -lyaml -lcrypto
  local corpus=$1
  seed "$corpus" $'{"protocol":1,"client":"fuzz"}\n{"command":"status"}\n{"command":"reload"}\n'
  seed "$corpus" $'{"command":"write","reader":"door","message_hex":"d1010b5502676f6f676c652e636f6d","timeout_s":0.1}\n'
  seed "$corpus" $'{"command":"read","present":false,"timeout_s":1e308}\n{"command":"nope"}\n[1,2]\n'
  seed "$corpus" $'{"protocol":2}\n'
  seed "$corpus" $'{"command":"events","kind":"tag.arrived","reader":"\u001b[2J"}\n'
  seed "$corpus" $'\xff\xfe{"command":"status"\n\n   \n{"command":"write","message_hex":"zz"}\n'
}

prepare_mqttin() {
  build_router_modules
  build_module NDEF Sources/NDEF
  # The plugin's sources and the entry point form one module (the entry point reaches the input's internals).
  link_as_one_module mqttin-fuzz MQTTInputFuzz MQTTInputFuzz.swift Plugins/MQTTPlugin OrderedJSON SystemKit Lifecycle NDEF TagCore TagRuntime TagCrypto SecureTags TagRouter -- -lmosquitto -lcrypto
  local corpus=$1
  local event='{"event":"tag.arrived","id":"e-1","time":"2026-01-01T00:00:00Z","reader":"door","tag":{"uid":"04a224b2","type":"ntag215","name":"annas-key","groups":["kids"]}}'
  seed "$corpus" $'\x00'"$event"$'\x00fleet/pi-1/door/tag.arrived'
  seed "$corpus" $'\x01{"Time":"2024-05-24T10:23:03","PN532":{"UID":"94D8FC5F","DATA":"ILOVETASMOTA"}}\x00tele/hall-esp/SENSOR'
  seed "$corpus" $'\x02{"RDM6300":{"UID":"0012345678"}}'
  seed "$corpus" $'\x05 04:A2:24:B2:C3:5E:80\n\x00nfc/back/scanned'
  seed "$corpus" $'\x08 3b8ae0f4-5e1c-4d2a-9c41-0a9c7c5b1e11'
  seed "$corpus" $'\x03{"event":"reader.disconnected","id":"x","reader":"front-door"}'
}

prepare_command() {
  build_router_modules
  build_module NDEF Sources/NDEF
  # The entry point reaches MQTTWriteCommands' internals.
  link_as_one_module command-fuzz MQTTPlugin CommandFuzz.swift Plugins/MQTTPlugin OrderedJSON SystemKit Lifecycle NDEF TagCore TagRuntime TagCrypto SecureTags TagRouter -- -lyaml -lmosquitto -lcrypto
  local corpus=$1 token=fuzz-command-token-0123456789
  seed "$corpus" '{"token":"'$token'","ha_tag":true,"timeout":60,"id":"kitchen-1"}'
  seed "$corpus" '{"token":"'$token'","records":[{"uri":"spotify:album:1"},{"text":"Abbey Road","lang":"en-GB"},{"mime":"text/plain","data":"hi"},{"json":{"room":"hall"}},{"aar":"com.spotify.music"},{"external":"example.com:t","data":"x"}]}'
  seed "$corpus" '{"token":"'$token'","json":"[1,2]","append":true,"lock":true,"timeout":0.5}'
  seed "$corpus" '{"token":"'$token'","text":"x","lang":"'"$(printf 'e%.0s' {1..63})"'"}'
  seed "$corpus" '{"uri":"https://evil.example/x","token":"wrong"}'
}

# Fills in the summary row of target $1 from its libFuzzer log $2 and corpus $3.
summary=()
summarize() {
  local target=$1 log=$2 corpus=$3 status=$4
  local execs rate files bytes found
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  files=$(find "$corpus" -type f | wc -l)
  bytes=$(du -sb "$corpus" | cut -f1)
  found=$(find "$crashes" -name "$target-*" -type f | wc -l)
  summary+=("$(printf '| %-8s | %6s | %12s | %8s | %6s | %10s B | %7s | %s |' \
    "$target" "$FUZZ_SECONDS" "${execs:-?}" "${rate:-?}" "$files" "$bytes" "$found" \
    "$([ "$status" -eq 0 ] && echo clean || echo "exit $status: see $log")")")
}

failed=0
export SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0
for target in $FUZZ_TARGETS; do
  case "$target" in
    ndef) max_len=4096 ;;
    config) max_len=8192 ;;
    template) max_len=1024 ;;
    spool) max_len=2048 ;;
    control) max_len=4096 ;;
    mqttin) max_len=4096 ;;
    command) max_len=4096 ;;
    *) echo "fuzz: unknown target '$target' (ndef, config, template, spool, control, mqttin, command)" >&2; exit 64 ;;
  esac
  corpus=fuzz-corpus/$target
  mkdir -p "$corpus"
  "prepare_$target" "$corpus"
  dict=()
  [ -f "Fuzz/$target.dict" ] && dict=(-dict="Fuzz/$target.dict")
  log=$build/$target.log
  echo "fuzz: $target for ${FUZZ_SECONDS}s (log: $log)"
  status=0
  # stdin is /dev/null: a config that names /dev/stdin must not wait for a terminal.
  "$build/$target-fuzz" -max_total_time="$FUZZ_SECONDS" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "${dict[@]}" -artifact_prefix="$crashes/$target-" "$corpus" </dev/null 2>"$log" || status=$?
  grep -E '^#[0-9]+.*(pulse|DONE)' "$log" | tail -2 || true
  [ "$status" -eq 0 ] || { failed=1; tail -40 "$log"; }
  summarize "$target" "$log" "$corpus" "$status"
done

echo
echo "| target   | s each | executions   | execs/s  | corpus | corpus size  | crashes | result |"
echo "| -------- | ------ | ------------ | -------- | ------ | ------------ | ------- | ------ |"
printf '%s\n' "${summary[@]}"
exit "$failed"
