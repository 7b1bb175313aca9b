#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the layering rules of docs/design.md on every C source of the tree (G-LAY-1, G-LAY-2).

    check_layering.py SOURCE_DIR

Every C source (.c, .h, .def, .cpp) belongs to the module whose folder holds it (MODULES). The
rules, each reported as "file:line: [rule] what":

  folder   every folder that holds a C source is a module of the design table; a new folder is
           an error until it is added here and to docs/design.md, never silently skipped.
  include  a module includes a header only of the modules ALLOWED lists for it (the design
           table); tests/ and bench/ may include everything.
  name     file names are unique across the tree, headers and .def tables alike (G-LAY-2): an
           include by base name must mean one file.
  def      every .def table is listed in DEFS with the modules that may include it besides its
           owner; a .def of the tree not listed there is an error too.
  ioctl    only kfd/ issues ioctls: no call of ioctl() nor syscall(SYS_ioctl or __NR_ioctl, ...)
           anywhere else, bench/ included. tests/ may (a test of the driver fakes it through
           kfd's injected transport, as test_kfd_linux does). Naming __NR_ioctl in a seccomp
           filter is no call. NON_DRIVER_IOCTLS lists requests that are no driver's and may be
           issued anywhere; IOCTL_EXCEPTIONS the single calls allowed elsewhere, with reasons.
  llvm     only arch/ includes LLVM's headers (<llvm-c/...>, <llvm/...>; G-ARCH-4), and tests/ and
           bench/.
  family   only arch/ names GPU families (G-ARCH-1): no gfx<digit>, RDNA/CDNA, MI<number> or
           AMD code name in code or string literals outside arch/, tests/ and bench/ (the tests'
           scenarios name targets: that is test data). Comments may name families, to explain;
           code may not branch on them. FAMILY_EXCEPTIONS lists, with reasons, what is allowed.

Comments are ignored by every rule; string literals by the ioctl rule. In a git checkout the
files checked are the tracked ones and the untracked ones git does not ignore; elsewhere every
file but those in build trees (a folder holding CMakeCache.txt) and hidden folders. Prints one line per violation and exits
1, or a summary and exits 0.
"""
import os
import re
import subprocess
import sys

# Module of a folder (longest prefix wins).
MODULES = {
    "base": "base",
    "schema": "schema",
    "libcore": "libcore",
    "arch": "arch",
    "kfd": "kfd",
    "kfd/sim": "kfd/sim",
    "kfd/emu": "kfd/emu",
    "capture": "capture",
    "capture/hook": "capture/hook",
    "analyze": "analyze",
    "dbgapi": "dbgapi",
    "store": "store",
    "cli": "cli",
    "cli/dbgapi-dump": "cli/dbgapi-dump",
    "tests": "tests",
    "bench": "bench",
}

EVERYTHING = None  # ALLOWED value: the module may include any header of the tree

# docs/design.md, "Components and their direction of dependency": the table, row by row.
ALLOWED = {
    # the status type and the helpers every module may use; libc only
    "base": {"base"},
    "schema": {"schema", "base"},
    "libcore": {"libcore", "schema", "base"},
    "arch": {"arch", "base"},
    # the driver boundary; the sim backend's wire protocol (kfd_sim_protocol.h) is kfd's own
    "kfd": {"kfd", "base"},
    # the simulated driver and the inferior: kfd's uapi and wire protocol, arch's CWSR encoder
    "kfd/sim": {"kfd/sim", "kfd", "arch", "base"},
    # the kernel driver emulated for AMD's own user space: the simulated driver's device model,
    # kfd's uapi, arch's CWSR encoder, and schema's decoders of the runtime's structures
    "kfd/emu": {"kfd/emu", "kfd/sim", "kfd", "arch", "schema", "base"},
    "capture": {"capture", "kfd", "libcore", "schema", "arch", "base"},
    # libgpucore-hook.so runs inside arbitrary programs and links nothing of gpucore (libc
    # only), not even base.
    "capture/hook": {"capture/hook"},
    "analyze": {"analyze", "libcore", "schema", "arch", "base"},
    # libgpucore-dbgapi, a shared library with its own ABI (AMD's amd-dbgapi 0.77), served from
    # analyze's process image. No module includes it: its clients reach it through the public
    # header at run time, as a debugger does; tests and bench may.
    "dbgapi": {"dbgapi", "analyze", "libcore", "schema", "arch", "base"},
    # the core store: its index is built from what libcore, schema and analyze's triage say
    "store": {"store", "analyze", "libcore", "schema", "base"},
    # The program is thin: capture and analyze (and the container and format they return).
    # What `gpucore analyze` shows is built in analyze/ (triage.h); cli/ only renders it.
    "cli": {"cli", "capture", "analyze", "store", "libcore", "schema", "base"},
    # `gpucore dbgapi-dump`, a client of AMD's public interface that also runs against AMD's
    # library: of gpucore, only the single headers EXTRA_HEADERS names and abi_table.def (DEFS).
    "cli/dbgapi-dump": {"cli/dbgapi-dump"},
    "tests": EVERYTHING,
    "bench": EVERYTHING,
}

# Single headers a module may include besides ALLOWED: the ROCm runtime's tools interface,
# mirrored in schema/ (another program's ABI, like gc_rocr.h), which the simulated runtime of
# the inferior builds and the hook consumes; and gc_rocr.h, the runtime's structures (amd_queue_t)
# the simulated runtime lays out with the encoder every reader decodes them with.
EXTRA_HEADERS = {
    "kfd/sim": {"gc_hsa_tools.h", "gc_rocr.h"},
    "capture/hook": {"gc_hsa_tools.h"},
    # gpucore dbgapi-dump: the public amd-dbgapi header and nothing else of the library; the
    # public headers of libgpucore for the core it serves memory from; the program's cli.h
    # (exit codes, messages, output), as a subcommand of gpucore.
    "cli/dbgapi-dump": {"amd-dbgapi.h", "core.h", "schema.h", "cli.h"},
}

# Every .def table: its path and the modules that may include it besides its owner (the module
# of its folder) and tests/ and bench/. A .def is a module's private table; whoever else reads it
# is named here.
DEFS = {
    # on-disk layouts, field by field: the codecs and FORMAT.md's generator only
    "schema/schema_layouts.def": set(),
    "schema/kfd_note.def": set(),
    "schema/gpucore_notes.def": set(),
    "schema/gpucore_enums.def": set(),
    # amd-dbgapi 0.77's functions and version nodes, facts of the public ABI: the library, and
    # `gpucore dbgapi-dump`, which binds every function by name and node
    "dbgapi/abi_table.def": {"cli/dbgapi-dump"},
    # the statuses AMD's header documents for each function (G-ERR-5): the library only
    "dbgapi/statuses.def": set(),
}

# Modules that may issue ioctls.
IOCTL_MODULES = {"kfd", "kfd/emu", "tests"}
# ioctl requests that are no driver's and may be issued anywhere: request -> reason.
NON_DRIVER_IOCTLS = {
    "TIOCGWINSZ": "the size of the terminal a progress line is drawn on",
}
# (file, request) -> why that file may make that one driver call outside kfd/.
IOCTL_EXCEPTIONS = {
    ("kfd/sim/inferior.c", "AMDKFD_IOC_RUNTIME_ENABLE"):
        "gpucore-inferior plays the ROCm runtime: its start-up handshake is a real system call "
        "on the stand-in device file gpucore run watches (GPUCORE_SIM_KFD), not /dev/kfd",
}

# Modules that may include LLVM's headers (G-ARCH-4).
LLVM_MODULES = {"arch", "tests", "bench"}
LLVM_HEADER = ("llvm-c/", "llvm/")

# Modules that may name GPU families.
FAMILY_MODULES = {"arch", "tests", "bench"}
FAMILY = re.compile(
    r"(?i:gfx)[0-9][0-9a-z]*"                        # gfx90a, GFX12_STATUS, gc_ttmp_gfx9
    r"|(?<![A-Za-z0-9])(?:RDNA|CDNA)[0-9]*(?![a-z])"   # RDNA3, CDNA
    r"|(?<![A-Za-z0-9])MI[0-9]{2,3}[A-Z]?(?![a-z0-9])"  # MI300X, MI210
    r"|(?<![A-Za-z0-9])(?:Vega|Navi|Arcturus|Aldebaran|Aqua_?Vanjaram)[0-9]*(?![a-z])")
# (file, name) -> why a family name outside arch/ is allowed there.
FAMILY_EXCEPTIONS = {
    ("schema/kfd_note.def", "gfx90a"):
        "the doc column of gfx_target_version gives an example value, rendered into FORMAT.md",
}

SOURCE_EXT = (".c", ".h", ".def", ".cpp")
HEADER_EXT = (".h", ".def")

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]', re.M)
IOCTL = re.compile(r"(?<![\w.>])(?:ioctl\s*\(|syscall\s*\(\s*(?:SYS|__NR)_ioctl\b)")


def module_of(rel):
    best = None
    for prefix, mod in MODULES.items():
        if rel == prefix or rel.startswith(prefix + "/"):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, mod)
    return best[1] if best else None


def strip(text):
    """(code with comments blanked, code with comments and string literals blanked).

    Blanked characters become spaces, newlines stay, so offsets and line numbers are kept.
    """
    keep = list(text)
    nostr = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                keep[k] = nostr[k] = " "
            i = j
        elif c == "/" and nxt == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if text[k] != "\n":
                    keep[k] = nostr[k] = " "
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            for k in range(i + 1, j - 1):
                if text[k] != "\n":
                    nostr[k] = " "
            i = j
        else:
            i += 1
    return "".join(keep), "".join(nostr)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def call_args(code, open_paren):
    """Top-level arguments of the call whose '(' is at open_paren (stripped code)."""
    args, depth, start = [], 0, open_paren + 1
    for k in range(open_paren, len(code)):
        ch = code[k]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                args.append(code[start:k].strip())
                return args
        elif ch == "," and depth == 1:
            args.append(code[start:k].strip())
            start = k + 1
    return args


def candidate_files(root):
    """Relative paths of the files to check: in a git checkout, the tracked files and the
    untracked ones git does not ignore (a new file is checked before it is added; build trees
    and copies of old sources the benchmarks unpack are ignored); elsewhere every file below
    root but build trees (a folder holding CMakeCache.txt) and hidden folders."""
    if os.path.exists(os.path.join(root, ".git")):
        try:
            out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                                  "--exclude-standard"], check=True, capture_output=True).stdout
            return sorted(p for p in out.decode("utf-8", "surrogateescape").split("\0")
                          if p and os.path.isfile(os.path.join(root, p)))
        except (OSError, subprocess.CalledProcessError):
            pass
    found = []
    for dirpath, dirs, files in os.walk(root):
        if dirpath != root and os.path.exists(os.path.join(dirpath, "CMakeCache.txt")):
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for f in sorted(files):
            found.append(os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/"))
    return found


def collect(root):
    """Sources as (rel, module); sources in no module are returned apart."""
    sources, strays = [], []
    for rel in candidate_files(root):
        if not rel.endswith(SOURCE_EXT):
            continue
        mod = module_of(rel)
        (sources if mod else strays).append((rel, mod))
    return sources, strays


def check(root):
    """List of violation lines for the tree at root."""
    out = []
    for mod, allowed in ALLOWED.items():
        if mod not in MODULES.values():
            out.append(f"check_layering.py: ALLOWED names {mod}, which MODULES does not have")
        for other in allowed or ():
            if other not in ALLOWED:
                out.append(f"check_layering.py: ALLOWED[{mod}] names unknown module {other}")
    for mod in set(MODULES.values()) - set(ALLOWED):
        out.append(f"check_layering.py: module {mod} has no row in ALLOWED")

    sources, strays = collect(root)
    for rel, _ in strays:
        out.append(f"{rel}:1: [folder] {os.path.dirname(rel) or '.'} is no module of "
                   f"docs/design.md; add it to the design table and to check_layering.py")

    # Header or .def base name -> (rel, module). With two files of one name (reported), an
    # include by that name is taken to mean the first in path order.
    owner = {}
    for rel, mod in sources:
        if not rel.endswith(HEADER_EXT):
            continue
        name = os.path.basename(rel)
        if name in owner:
            out.append(f"{rel}:1: [name] file name also used by {owner[name][0]} "
                       f"(file names are unique across the tree, G-LAY-2)")
        else:
            owner[name] = (rel, mod)

    present = {rel for rel, _ in sources}
    for rel in sorted(DEFS):
        if rel not in present:
            out.append(f"{rel}:1: [def] listed in DEFS but not in the tree")
        elif module_of(rel) is None:
            out.append(f"{rel}:1: [def] listed in DEFS but in no module")
    for rel in sorted(present):
        if rel.endswith(".def") and rel not in DEFS and module_of(rel) not in ("tests", "bench"):
            out.append(f"{rel}:1: [def] not in DEFS: name the modules that may include it")

    for rel, mod in sources:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        code, nostr = strip(text)
        allowed = ALLOWED.get(mod)

        for m in INCLUDE.finditer(code):
            name = os.path.basename(m.group(1))
            line = line_of(code, m.start())
            if m.group(1).startswith(LLVM_HEADER) and mod not in LLVM_MODULES:
                out.append(f"{rel}:{line}: [llvm] module {mod} includes {m.group(1)}; only arch/ "
                           f"includes LLVM's headers (G-ARCH-4)")
                continue
            if name not in owner:
                continue  # a system or library header
            def_rel, target = owner[name]
            if allowed is EVERYTHING:
                continue
            if name.endswith(".def"):
                if target != mod and mod not in DEFS.get(def_rel, set()):
                    out.append(f"{rel}:{line}: [def] module {mod} includes {m.group(1)}, "
                               f"which DEFS lets only {target} use"
                               + (f" and {', '.join(sorted(DEFS[def_rel]))}"
                                  if DEFS.get(def_rel) else ""))
                continue
            if target in allowed or name in EXTRA_HEADERS.get(mod, ()):
                continue
            out.append(f"{rel}:{line}: [include] module {mod} includes {m.group(1)} of module "
                       f"{target}, which docs/design.md does not let it use")

        if mod not in IOCTL_MODULES:
            for m in IOCTL.finditer(nostr):
                args = call_args(nostr, nostr.index("(", m.start()))
                # ioctl(fd, request, ...) or syscall(SYS_ioctl, fd, request, ...)
                request = args[1 if m.group(0).startswith("ioctl") else 2:][:1]
                request = request[0] if request else ""
                if request in NON_DRIVER_IOCTLS or (rel, request) in IOCTL_EXCEPTIONS:
                    continue
                out.append(f"{rel}:{line_of(nostr, m.start())}: [ioctl] module {mod} issues "
                           f"ioctl {request or '?'}; only kfd/ talks to the driver "
                           f"(docs/design.md)")

        if mod not in FAMILY_MODULES:
            for m in FAMILY.finditer(code):
                word = m.group(0)
                if (rel, word) in FAMILY_EXCEPTIONS:
                    continue
                out.append(f"{rel}:{line_of(code, m.start())}: [family] module {mod} names GPU "
                           f"family '{word}' in code; only arch/ may (G-ARCH-1)")
    return out, len(sources)


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: check_layering.py SOURCE_DIR", file=sys.stderr)
        return 2
    out, nsources = check(os.path.abspath(argv[1]))
    for line in out:
        print(line)
    if out:
        print(f"{len(out)} violation(s) of the layering rules of docs/design.md")
        return 1
    print(f"{nsources} files follow the layering rules of docs/design.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
