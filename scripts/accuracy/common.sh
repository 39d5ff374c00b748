# Sourced by the accuracy scripts (not run): the workbench they measure and the datasets' recipes, in one place.
# The sourcing script has already done `cd` to the repository root and set `set -euo pipefail`.
#
#   accuracy_workbench CALLER   sets $workbench: $WORKBENCH when given (set-up is then skipped, but its .venv must
#                               exist), else runs scripts/setup.sh and uses its release build
#   build_dataset NAME CALLER   builds datasets/NAME from its recipe in datasets/ unless it is built already
#   $holds_datasets             issue 26's datasets (finetune-holds.sh, finetune-outer-split.sh), in table order

python=.venv/bin/python3  # set-up's venv
# shellcheck disable=SC2034  # read by the sourcing scripts
holds_datasets=(emoticons weather folders photos drawings devices furniture filetypes clothes tops shapes)

accuracy_workbench() {
    if [ -n "${WORKBENCH:-}" ]; then
        workbench=$WORKBENCH
        "$python" -c "import PIL" 2>/dev/null || { echo "$1: run scripts/setup.sh first (.venv/)" >&2; exit 1; }
    else
        scripts/setup.sh >&2
        workbench=.build/release/workbench
    fi
}

build_dataset() {
    [ -d "datasets/$1/Training Data" ] && return 0
    case "$1" in
        emoticons | weather | folders | devices | filetypes) "$python" datasets/build_icons.py --recipe "$1" >/dev/null ;;
        photos) "$python" datasets/build_photos.py >/dev/null ;;
        drawings) "$python" datasets/build_clipart.py --recipe drawings >/dev/null ;;
        digits | footwear | fashion | fashion1000 | clothes | clothes-wide-test | tops | shapes) "$python" datasets/build_grayscale.py --recipe "$1" >/dev/null ;;
        *)
            if [ -f "datasets/build_$1.py" ]; then
                "$python" "datasets/build_$1.py" >/dev/null
            else
                echo "$2: no recipe for $1 (emoticons, weather, folders, devices, photos, drawings, digits, footwear," \
                     "fashion, or datasets/build_$1.py)" >&2
                exit 2
            fi
            ;;
    esac
}
