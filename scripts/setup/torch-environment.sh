# Sourced by the scripts that measure against PyTorch (bench/bench-finetune.sh, accuracy/detector-reference.sh):
# `torch_environment PACKAGE...` sets $torch_python to the interpreter of .venv-torch/, a virtual environment of its
# own that holds torch and what the script asks for, installed from PyPI on first use.
#
# Not the project's .venv/: PyPI's torch for Linux brings Triton, whose LLVM clashes with coremltools' in one process
# ("LLVM ERROR: inconsistency in registered CommandLine options"), so the export tests' Core ML checks would abort in
# a .venv/ that held both. The references need neither coremltools nor anything else of .venv/.
torch_environment() {
    torch_python=.venv-torch/bin/python3
    if ! "$torch_python" -c "" 2>/dev/null; then
        echo "torch-environment: creating .venv-torch/ for the PyTorch references" >&2
        /usr/bin/python3 -m venv --clear .venv-torch
    fi
    local missing=()
    local package module
    for package in "$@"; do
        module=${package%%[=<>]*}
        case "$module" in pycocotools) ;; *) module=${module//-/_} ;; esac
        "$torch_python" -c "import importlib.util as u, sys; sys.exit(not u.find_spec('$module'))" 2>/dev/null || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "torch-environment: installing ${missing[*]} into .venv-torch/ (torch with them: a large download, once)" >&2
        "$torch_python" -m pip install --quiet --disable-pip-version-check "${missing[@]}"
    fi
}
