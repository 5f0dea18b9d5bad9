#!/usr/bin/env python3
"""Regenerates the text-form fixtures with the real engines (see gen-text-fixtures.sh).

    python3 scripts/gen-text-fixtures.py [BIN_DIR] [--only text|configfile]

BIN_DIR holds godot3.2, godot3.6 and godot4 (default: $GODOT_BIN, else
<repo>/.godot-oracles/bin). Writes, under tests/fixtures/:

  text/print_<engine>.jsonl      var2str / var_to_str of a broad value set
  text/parse_inputs.hex          every str2var input, one UTF-8 hex a line: the inputs of
                                 text/parse_inputs.txt, then every text in print_*.jsonl and
                                 in the golden fixtures (tests/fixtures/godot3, godot4)
                                 not already there
  text/parse_inputs.origin.tsv   where each input comes from
  text/parse_<engine>.jsonl      what each engine's str2var made of each input
  text/parse_crashes.jsonl       inputs an engine crashed (or hung) on, and in which step
  text/engine-versions.txt       (also configfile/engine-versions.txt)
  configfile/<engine>/saved/*.cfg      ConfigFile.save() of objects built by cfgsave*.gd
  configfile/<engine>/save.jsonl       save()'s return values
  configfile/<engine>/load.jsonl       what load() and parse() read from configfile/inputs/
  configfile/<engine>/resaved/*.cfg    each input load()ed and save()d again
  configfile/<engine>/reload.jsonl     what load() and parse() read from that engine's saved/

Godot 3 writes uninitialised memory into NodePath padding; every "hex" from a Godot 3
engine has those padding bytes zeroed here so the files are reproducible.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEXT = os.path.join(ROOT, "tests", "fixtures", "text")
CFG = os.path.join(ROOT, "tests", "fixtures", "configfile")
ORACLE = os.path.join(ROOT, "tests", "oracle")
ENGINES = ["godot3.2", "godot3.6", "godot4"]
TIMEOUT = 180

PROJECT3 = (
    "config_version=4\n\n[logging]\n\n"
    "file_logging/enable_file_logging=false\n"
    "file_logging/enable_file_logging.pc=false\n"
)
PROJECT4 = "config_version=5\n"
RES3 = '[gd_resource type="Resource" format=2]\n\n[resource]\n'
RES4 = '[gd_resource type="Resource" format=3]\n\n[resource]\n'


def is4(engine):
    return engine == "godot4"


def die(msg):
    sys.exit("gen-text-fixtures: " + msg)


# --------------------------------------------------------------------------------------
# Engine runs


class Engines:
    def __init__(self, bin_dir, work):
        self.bin = bin_dir
        self.work = work
        self.projects = {}
        for e in ENGINES:
            exe = os.path.join(bin_dir, e)
            if not os.access(exe, os.X_OK):
                die(f"no {exe} (run scripts/setup-godot.sh)")

    def project(self, engine):
        """A fresh throw-away project folder for the engine family (shared per family)."""
        key = "4" if is4(engine) else "3"
        if key not in self.projects:
            d = os.path.join(self.work, "p" + key)
            os.makedirs(d)
            with open(os.path.join(d, "project.godot"), "w") as f:
                f.write(PROJECT4 if key == "4" else PROJECT3)
            with open(os.path.join(d, "r.tres"), "w") as f:
                f.write(RES4 if key == "4" else RES3)
            self.projects[key] = d
        return self.projects[key]

    def run(self, engine, script, env=None, cwd=None):
        """Runs a script; returns (returncode, stdout lines starting with '{' or '@', stderr)."""
        proj = self.project(engine)
        shutil.copy(os.path.join(ORACLE, script), os.path.join(proj, script))
        args = [os.path.join(self.bin, engine)]
        if is4(engine):
            args += ["--headless", "--no-header"]
        args += ["--path", proj, "-s", script]
        full_env = dict(os.environ)
        full_env.update(env or {})
        try:
            p = subprocess.run(args, env=full_env, cwd=cwd or proj, capture_output=True, timeout=TIMEOUT)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as t:
            rc, out, err = "timeout", t.stdout or b"", t.stderr or b""
        lines = [l for l in out.decode("utf-8", "replace").split("\n") if l.startswith(("{", "@"))]
        return rc, lines, err.decode("utf-8", "replace")

    def version(self, engine):
        p = subprocess.run([os.path.join(self.bin, engine), "--version"], capture_output=True)
        return p.stdout.decode().strip().split("\n")[-1]


# --------------------------------------------------------------------------------------
# Godot 3 NodePath padding (uninitialised memory): zero it.


def zero_nodepath_padding_3(h):
    if not h:
        return h
    data = bytearray(bytes.fromhex(h))
    u32 = lambda o: struct.unpack_from("<I", data, o)[0]

    def string(o, pad=False):
        n = u32(o)
        end = o + 4 + n + (-n % 4)
        if pad:
            for k in range(o + 4 + n, end):
                data[k] = 0
        return end

    fixed = {0: 0, 1: 4, 5: 8, 6: 16, 7: 12, 8: 24, 9: 16, 10: 16, 11: 24, 12: 36, 13: 48, 14: 16, 16: 0}

    def value(o):
        hd = u32(o)
        t = hd & 0xFF
        o += 4
        if t in fixed:
            return o + fixed[t]
        if t in (2, 3):
            return o + (8 if hd & 0x10000 else 4)
        if t == 4:
            return string(o)
        if t == 15:
            names, subs, flags = u32(o) & 0x7FFFFFFF, u32(o + 4), u32(o + 8)
            o += 12
            for _ in range(names + subs + (1 if flags & 2 else 0)):
                o = string(o, True)
            return o
        if t == 17:
            if hd & 0x10000:
                return o + 8
            if u32(o) == 0:
                return o + 4
            o = string(o)
            n = u32(o)
            o += 4
            for _ in range(n):
                o = value(string(o))
            return o
        n = u32(o) & 0x7FFFFFFF
        o += 4
        if t == 18:
            for _ in range(2 * n):
                o = value(o)
            return o
        if t == 19:
            for _ in range(n):
                o = value(o)
            return o
        if t == 20:
            return o + n + (-n % 4)
        if t == 23:
            for _ in range(n):
                o = string(o)
            return o
        return o + n * {21: 4, 22: 4, 24: 8, 25: 12, 26: 16}[t]

    end = value(0)
    if end != len(data):
        die(f"Godot 3 value walk ended at {end} of {len(data)} bytes: {h[:80]}")
    return data.hex()


def fix_hex(engine, h):
    return h if is4(engine) else zero_nodepath_padding_3(h)


def dump_jsonl(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n")


# --------------------------------------------------------------------------------------
# Part 1: text


def decode_source_line(line, lineno):
    """parse_inputs.txt notation -> input bytes (see the file's header)."""
    if not line.startswith("e:"):
        if line != line.rstrip(" \t"):
            die(f"parse_inputs.txt:{lineno}: trailing blanks on a verbatim line (use e:...<SP>)")
        return line.encode("utf-8")
    s = line[2:]
    s = re.sub(r"<REP (\d+)\|([^>]*)>", lambda m: m.group(2) * int(m.group(1)), s)
    names = {"LF": "\n", "CR": "\r", "TAB": "\t", "SP": " ", "NUL": "\0", "BOM": "\ufeff"}
    s = re.sub(r"<(LF|CR|TAB|SP|NUL|BOM)>", lambda m: names[m.group(1)], s)
    s = re.sub(r"<U\+([0-9A-Fa-f]{4,6})>", lambda m: chr(int(m.group(1), 16)), s)
    return s.encode("utf-8", "surrogatepass")


def read_source_inputs():
    out = []
    with open(os.path.join(TEXT, "parse_inputs.txt"), encoding="utf-8") as f:
        for n, line in enumerate(f.read().split("\n"), 1):
            if line == "" or line.startswith("//"):
                continue
            out.append((decode_source_line(line, n), f"parse_inputs.txt:{n}"))
    return out


def golden_texts():
    """var2str texts already recorded in the binary golden fixtures (engine output)."""
    out = []
    for rel in ["godot3/godot3.2.jsonl", "godot3/godot3.6.jsonl", "godot4/godot4.6.jsonl"]:
        p = os.path.join(ROOT, "tests", "fixtures", rel)
        if not os.path.exists(p):
            continue
        for line in open(p, encoding="utf-8"):
            d = json.loads(line)
            if "note" in d:  # run-dependent (object ids)
                continue
            for k in ("text", "value_text"):
                if k in d:
                    out.append((d[k].encode("utf-8", "surrogatepass"), f"golden:{rel}:{d['name']}:{k}"))
    return out


def gen_text(eng):
    # 1. What the engines print.
    printed = {}
    for e in ENGINES:
        script = "print4.gd" if is4(e) else "print.gd"
        rc, lines, err = eng.run(e, script)
        lines = [l for l in lines if l.startswith("{")]
        if rc != 0 or not lines:
            die(f"{e} {script} failed (rc {rc}):\n{err[-2000:]}")
        rows = [json.loads(l) for l in lines]
        for r in rows:
            r["hex"] = fix_hex(e, r["hex"])
        dump_jsonl(os.path.join(TEXT, f"print_{e}.jsonl"), rows)
        printed[e] = rows
        print(f"{e}: printed {len(rows)} values", file=sys.stderr)
    # 2. The input list: hand-written, then printed texts, then golden texts (deduplicated).
    inputs = read_source_inputs()
    hand = len(inputs)
    seen = set()
    for b, _ in inputs:
        seen.add(b)
    extra = []
    for e in ENGINES:
        for r in printed[e]:
            extra.append((bytes.fromhex(r["text"]), f"print_{e}.jsonl:{r['name']}"))
    extra += golden_texts()
    for b, origin in extra:
        if b not in seen:
            seen.add(b)
            inputs.append((b, origin))
    with open(os.path.join(TEXT, "parse_inputs.hex"), "w") as f:
        for b, _ in inputs:
            f.write(b.hex() + "\n")
    with open(os.path.join(TEXT, "parse_inputs.origin.tsv"), "w") as f:
        f.write("i\torigin\n")
        for i, (_, origin) in enumerate(inputs):
            f.write(f"{i}\t{origin}\n")
    golden = sum(1 for _, o in inputs if o.startswith("golden:"))
    print(f"{len(inputs)} inputs: {hand} hand-written, {len(inputs) - hand - golden} printed by print*.gd, "
          f"{golden} from the golden fixtures", file=sys.stderr)
    # 3. Parse them all, resuming after crashes.
    hex_path = os.path.join(TEXT, "parse_inputs.hex")
    crashes = []
    for e in ENGINES:
        script = "parse4.gd" if is4(e) else "parse.gd"
        rows = {}
        skips = {"check": set(), "text": set(), "hex": set()}
        start = 0
        while True:
            env = {"ORACLE_IN": hex_path, "ORACLE_START": str(start)}
            for step, idx in skips.items():
                env["ORACLE_SKIP_" + step.upper()] = ",".join(str(k) for k in sorted(idx))
            rc, lines, err = eng.run(e, script, env=env)
            marker = None
            for l in lines:
                if l.startswith("{"):
                    r = json.loads(l)
                    rows[r["i"]] = r
                else:
                    step, i = l[1:].split()
                    marker = (step, int(i))
            if rc == 0 and len(inputs) - 1 in rows:
                break
            if marker is None:
                die(f"{e} {script} failed before its first input (rc {rc}):\n{err[-2000:]}")
            step, bad = marker
            if any(c["engine"] == e and c["i"] == bad and c["step"] == step for c in crashes):
                step = "parse"  # the same crash again with that step skipped: give the input up
            tail = " | ".join(l.strip() for l in err.strip().split("\n")[-4:])
            crashes.append({"engine": e, "i": bad, "step": step, "exit": str(rc),
                            "origin": inputs[bad][1], "input_bytes": len(inputs[bad][0]), "stderr_tail": tail[:400]})
            print(f"{e}: crash on input {bad} ({inputs[bad][1]}) in step {step}, rc {rc}", file=sys.stderr)
            if step in skips:
                skips[step].add(bad)
                start = bad
            else:  # parse: the input is left out; free: its line is complete
                if step == "parse":
                    rows.pop(bad, None)
                start = bad + 1
            if start >= len(inputs):
                break
        rows = [rows[k] for k in sorted(rows)]
        for r in rows:
            r["hex"] = fix_hex(e, r["hex"])
        dump_jsonl(os.path.join(TEXT, f"parse_{e}.jsonl"), rows)
        ok = sum(1 for r in rows if r["ok"])
        strict = sum(1 for r in rows if r.get("parse_ok"))
        print(f"{e}: {len(rows)} results, {ok} ok ({strict} parse_ok), {len(rows) - ok} refused", file=sys.stderr)
    dump_jsonl(os.path.join(TEXT, "parse_crashes.jsonl"), crashes)
    write_versions(eng, TEXT)


def write_versions(eng, folder):
    with open(os.path.join(folder, "engine-versions.txt"), "w") as f:
        for e in ENGINES:
            f.write(f"{e} {eng.version(e)}\n")


# --------------------------------------------------------------------------------------
# Part 2: ConfigFile


def gen_configfile(eng):
    inputs = os.path.join(CFG, "inputs")
    summary = []
    for e in ENGINES:
        edir = os.path.join(CFG, e)
        shutil.rmtree(edir, ignore_errors=True)
        saved = os.path.join(edir, "saved")
        resaved = os.path.join(edir, "resaved")
        os.makedirs(saved)
        os.makedirs(resaved)
        # save(): ConfigFile objects built through the API.
        script = "cfgsave4.gd" if is4(e) else "cfgsave.gd"
        rc, lines, err = eng.run(e, script, env={"CFG_OUT": saved})
        lines = [l for l in lines if l.startswith("{")]
        if rc != 0 or not lines:
            die(f"{e} {script} failed (rc {rc}):\n{err[-2000:]}")
        dump_jsonl(os.path.join(edir, "save.jsonl"), [json.loads(l) for l in lines])
        # load() / parse(): the hand-written inputs; load()ed files are saved again.
        script = "cfgload4.gd" if is4(e) else "cfgload.gd"
        rc, lines, err = eng.run(e, script, env={"CFG_IN": inputs, "CFG_RESAVE": resaved})
        lines = [l for l in lines if l.startswith("{")]
        if rc != 0 or not lines:
            die(f"{e} {script} failed (rc {rc}):\n{err[-2000:]}")
        rows = [json.loads(l) for l in lines]
        for r in rows:
            if "hex" in r:
                r["hex"] = fix_hex(e, r["hex"])
        dump_jsonl(os.path.join(edir, "load.jsonl"), rows)
        files = sum(1 for r in rows if "sections" in r)
        keys = sum(1 for r in rows if "key" in r)
        # The engine reads its own saved files back (what survives a save/load round trip).
        rc, lines, err = eng.run(e, script, env={"CFG_IN": saved, "CFG_RESAVE": ""})
        lines = [l for l in lines if l.startswith("{")]
        if rc != 0 or not lines:
            die(f"{e} {script} on saved/ failed (rc {rc}):\n{err[-2000:]}")
        rows = [json.loads(l) for l in lines]
        for r in rows:
            if "hex" in r:
                r["hex"] = fix_hex(e, r["hex"])
        dump_jsonl(os.path.join(edir, "reload.jsonl"), rows)
        summary.append(f"{e}: saved {len(os.listdir(saved))} files, read {files // 2} inputs twice ({keys} key lines)")
    write_versions(eng, CFG)
    for line in summary:
        print(line, file=sys.stderr)


# --------------------------------------------------------------------------------------


def main():
    args = [a for a in sys.argv[1:]]
    only = None
    if "--only" in args:
        k = args.index("--only")
        only = args[k + 1]
        del args[k : k + 2]
    bin_dir = args[0] if args else os.environ.get("GODOT_BIN", os.path.join(ROOT, ".godot-oracles", "bin"))
    bin_dir = os.path.abspath(bin_dir)
    work = tempfile.mkdtemp(prefix="gen-text-fixtures.")
    try:
        eng = Engines(bin_dir, work)
        if only in (None, "text"):
            gen_text(eng)
        if only in (None, "configfile"):
            gen_configfile(eng)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    # Deeply nested values are walked recursively (zero_nodepath_padding_3).
    import threading

    sys.setrecursionlimit(1_000_000)
    threading.stack_size(1 << 30)
    status = []

    def run():
        try:
            main()
            status.append(0)
        except SystemExit as x:
            print(x, file=sys.stderr) if isinstance(x.code, str) else None
            status.append(x.code if isinstance(x.code, int) else 1)
        except BaseException:
            import traceback

            traceback.print_exc()
            status.append(1)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    sys.exit(status[0] if status else 1)
