#!/usr/bin/env bash
# order_fixtures.sh -- `memplan plan --order best` on every npm fixture
# (scripts/list_fixtures.sh --unique), its dims bound as below: the file
# order's arena peak and lower bound beside best's, the saving, the
# scheduler that won, whether it is proven, and the time of the whole plan
# against `plan` alone. Usage: bench/order_fixtures.sh [MEMPLAN]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
memplan="${1:-$here/build/native/memplan}"

args_of() { # the bindings used for a fixture (a batch of 1, typical input sizes)
    case "$(basename "$1")" in
    ch_PP-OCRv4_det_infer.onnx) echo "--dim p2o.DynamicDimension.0=1 --dim p2o.DynamicDimension.1=640 --dim p2o.DynamicDimension.2=640" ;;
    ch_PP-OCRv4_rec_infer.onnx) echo "--dim p2o.DynamicDimension.0=1 --dim p2o.DynamicDimension.1=320" ;;
    ch_ppocr_mobile_v2.0_cls_infer.onnx) echo "--dim p2o.DynamicDimension.0=1 --dim p2o.DynamicDimension.1=48 --dim p2o.DynamicDimension.2=192" ;;
    silero_vad.onnx | silero_vad_v5.onnx) echo "--dim input:0=1 --dim input:1=512 --dim state:1=1 --value sr=16000" ;;
    silero_vad_*.onnx) echo "--dim batch=1 --dim sequence=512" ;;
    embedding_model.onnx) echo "--dim unk__314=1" ;;
    melspectrogram.onnx) echo "--dim batch_size=1 --dim samples=16000" ;;
    *) echo "" ;;
    esac
}

ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }

row=$(cat <<'PY'
import json, os, sys
d = json.load(sys.stdin)
name, tf, tb = os.path.basename(sys.argv[1]), sys.argv[2], sys.argv[3]
o = d["order"]
if d["status"] != "planned":
    print("%-36s %6d deferred: %s" % (name, d["positions"], ", ".join(d["unknown"]["dims"])))
else:
    fp, bp = o["file_peak_bytes"], o["peak_bytes"]
    print("%-36s %6d %12d %12d %12d %12d %6.1f%% %-10s %-5s %6s %6s" % (
        name, d["positions"], fp, bp, o["file_lower_bound_bytes"], o["lower_bound_bytes"],
        100.0 * (fp - bp) / fp if fp else 0, o["name"], "yes" if o["exact"] else "no", tf, tb))
PY
)

printf '%-36s %6s %12s %12s %12s %12s %7s %-10s %-5s %6s %6s\n' model nodes file_peak best_peak file_lb best_lb saving order exact ms ms_best
"$here/scripts/list_fixtures.sh" --unique | while read -r m; do
    read -r -a args <<<"$(args_of "$m")"
    json=$("$memplan" plan "$m" "${args[@]}" --order best --json --no-nodes)
    t_file=$(ms "$memplan" plan "$m" "${args[@]}" --json --no-nodes)
    t_best=$(ms "$memplan" plan "$m" "${args[@]}" --order best --json --no-nodes)
    python3 -c "$row" "$m" "$t_file" "$t_best" <<<"$json"
done
