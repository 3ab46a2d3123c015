"""Compile a generated Java class with ``javac`` and run it with ``java``, for real.

Compiled classes are cached by the hash of their source for the life of the process, and
:func:`compile_sources` compiles many classes in one ``javac`` call (the JVM's start-up dominates).
A process that compiles again and again (the test suite) calls :func:`keep_javac_loaded`: the JDK's
own compiler then stays loaded in one JVM instead of starting and warming up once per call; one that
runs many programs where their JVM's start is not what it checks calls :func:`run_loaded`."""
from __future__ import annotations

import atexit
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import uuid

from . import compiler_errors
from .kept import KeptProcesses

_compiled: dict[str, tuple[str, str]] = {}  # source hash -> (class directory, qualified class name)
_linted: set[str] = set()  # the sources among them compiled with every warning an error
# javac's own JVM: C1 only and the serial collector. A javac run is too short for C2's compiles to
# pay off: a 37 MB class compiles in 14.5 s instead of 20.7 s, a 10,000-deep one in 12.5 s instead of
# 25 s, with half the memory. The class files are the same; options a JVM does not know are ignored.
JAVAC_JVM = ("-J-XX:+IgnoreUnrecognizedVMOptions", "-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC")
# Bigger compiles run in a javac process of their own: the heap they grow ends with it, where the
# loaded javac would keep it.
LOADED_JAVAC_LIMIT = 2_000_000  # characters of source


def class_name(source: str) -> str:
    """The qualified name of the public class declared in ``source``."""
    package = re.search(r"^package\s+([\w.]+)\s*;", source, re.MULTILINE)
    name = re.search(r"^public\s+(?:final\s+)?class\s+(\w+)", source, re.MULTILINE)
    if name is None:
        raise RuntimeError("no public class in the Java source")
    return f"{package.group(1)}.{name.group(1)}" if package else name.group(1)


def _key(source: str, release: str | None = None) -> str:
    return hashlib.sha256(source.encode("utf-8")).hexdigest() + f"/{release}"


def compile_sources(sources, javac: str = "javac", release: str | None = None, lint: bool = False) -> list[str]:
    """Compile several sources (distinct qualified class names, none needing another unless all are
    under :data:`LOADED_JAVAC_LIMIT` together) in one ``javac`` call, or a few; returns
    the class directory of each. Already compiled sources are not compiled again. ``lint``: with
    ``-Xlint:all -Werror``, so that any warning fails (the generated code must have none)."""
    todo = [s for s in dict.fromkeys(sources)
            if _key(s, release) not in _compiled or lint and _key(s, release) not in _linted]
    if todo:
        root = tempfile.mkdtemp(prefix="treegen-java-")
        atexit.register(shutil.rmtree, root, True)  # the classes live as long as the process
        paths = {}
        for source in todo:
            path = paths[source] = os.path.join(root, "src", *class_name(source).split(".")) + ".java"
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(source)
        out = os.path.join(root, "classes")
        options = ["-encoding", "UTF-8", *(["-Xlint:all", "-Werror"] if lint else ["-nowarn"]), "-d", out]
        options += ["--release", release] if release else []
        for batch in _batches(todo):
            big = sum(map(len, batch)) > LOADED_JAVAC_LIMIT
            exit_code, diagnostics = _javac(javac, options + [paths[source] for source in batch], alone=big)
            if exit_code != 0:
                raise RuntimeError(f"javac failed:\n{compiler_errors(diagnostics)}")
        for source in todo:
            _compiled[_key(source, release)] = (out, class_name(source))
            if lint:
                _linted.add(_key(source, release))
    return [_compiled[_key(s, release)][0] for s in sources]


def _batches(sources: list[str]) -> list[list[str]]:
    """The sources in javac calls (they must not need each other). With the loaded javac, many small
    classes over :data:`LOADED_JAVAC_LIMIT` in all go to it in batches under the limit, the big ones
    together to a javac of their own: the loaded javac compiles the 101 fixture classes (3.9 MB) in
    3.3 s of CPU, a javac of their own took 8.3 s."""
    if _loaded is None or sum(map(len, sources)) <= LOADED_JAVAC_LIMIT:
        return [sources]
    small = LOADED_JAVAC_LIMIT // 8
    batches, size = [], LOADED_JAVAC_LIMIT
    for source in (s for s in sources if len(s) <= small):
        if size + len(source) > LOADED_JAVAC_LIMIT:
            batches.append([])
            size = 0
        batches[-1].append(source)
        size += len(source)
    big = [s for s in sources if len(s) > small]
    return batches + [big] * bool(big)


def _javac(javac: str, arguments: list[str], alone: bool = False) -> tuple[int, str]:
    """Run javac on ``arguments``: in the loaded compiler when :func:`keep_javac_loaded` asked for
    one and the compile is not to run ``alone``, else as a process of its own. Its exit code and
    diagnostics."""
    if _loaded is None or alone:
        done = subprocess.run([javac, *JAVAC_JVM, *arguments], capture_output=True, text=True)
        return done.returncode, done.stderr
    java = os.path.join(os.path.dirname(javac), "java") if os.path.dirname(javac) else "java"
    with _loaded.process(java) as server:  # the JDK's compiler (javax.tools, what javac runs): SERVER
        server.stdin.write("\0".join(arguments).encode("utf-8") + b"\n")
        server.stdin.flush()
        reply = server.stdout.readline().split()
        if len(reply) != 2:
            raise RuntimeError(f"the loaded javac ended (exit {server.wait()})")
        return int(reply[0]), server.stdout.read(int(reply[1])).decode("utf-8", "replace")


def _kept_jvms(name: str, source: str, **popen) -> KeptProcesses:
    """A class given as source (the java launcher compiles it) run in one long-lived JVM per java
    command. Its JVM takes javac's options (C1 only: the requests are short)."""
    flags = [option[2:] for option in JAVAC_JVM]  # the JVM options given to javac's own JVM
    return KeptProcesses(name + ".java", source, lambda java, path: [java, *flags, path], **popen)


SERVER = """import java.io.*;
import java.nio.charset.StandardCharsets;

public class TreegenJavac {
    public static void main(String[] unused) throws IOException {
        javax.tools.JavaCompiler javac = javax.tools.ToolProvider.getSystemJavaCompiler();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        OutputStream out = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out));
        for (String line; (line = in.readLine()) != null; ) {
            ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
            int exit = javac.run(null, diagnostics, diagnostics, line.split("\\u0000"));
            byte[] text = diagnostics.toByteArray();
            out.write((exit + " " + text.length + "\\n").getBytes(StandardCharsets.UTF_8));
            out.write(text);
            out.flush();
        }
    }
}
"""
_loaded: KeptProcesses | None = None


def keep_javac_loaded() -> None:
    """From now on, compile in a JVM that keeps javac loaded (started on the first compile, ended
    with the process): after the first compile a small class takes ~0.2 s of CPU instead of ~1.2 s."""
    global _loaded
    if _loaded is None:
        _loaded = _kept_jvms("TreegenJavac", SERVER)
        atexit.register(_loaded.close)


def run(source: str, csv_text: str, args=(), java: str = "java", javac: str = "javac",
        release: str | None = None, timeout: float = 600, **_context) -> str:
    """Compile (once) and run the class as a program on ``csv_text``; its standard output. ``_context``
    (the model, engine settings) is what every runner receives; a program needs none of it.

    Raises RuntimeError with the standard error when compiling or running fails."""
    # the row API's driver (DRIVER) in the same javac call, once a process: verify runs it next, where a javac
    # of its own cost 1.4 s (the bench's tree: 2.0 s for the class alone, 2.2-2.7 s with the driver)
    directory = compile_sources([source, DRIVER], javac=javac, release=release)[0]
    done = subprocess.run([java, "-cp", directory, class_name(source), *args],
                          input=csv_text.encode("utf-8"), capture_output=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"java exited with {done.returncode}: {done.stderr.decode('utf-8', 'replace')}")
    return done.stdout.decode("utf-8")


ROW_API = "Map API"  # what verify's lines call the row API
# How the driver gives a row's missing values (treegen.run.row_api.WAYS), as verify's lines say it; "o": as null in
# an Object[] of one value per feature in FEATURES order (predict(Object[]), its own encoder), not in a Map.
WAYS = {"n": "null", "f": "Double.NaN", "a": "absent keys", "o": "null"}
WAY_APIS = {"o": "Object[] API"}  # the ways answered by another API than ROW_API, as verify's lines call it
# The rows API, predictRows(double[][]) and predictProbaRows, on the rows encoded (encode(Map)): all of them in
# one call, and one a call (sumsOfRows sums every row of a call together: no groups of rows).
ROWS_API = ("predictRows", "predictProbaRows")
ROWS_AT_ONCE = None


def run_row_api(source: str, driver_input: str, java: str = "java", javac: str = "javac",
                release: str | None = None, timeout: float = 600) -> str:
    """What :data:`DRIVER` prints for the class ``source`` given ``driver_input``
    (:func:`treegen.run.row_api.driver_input`): the answers of its ``predict``, ``predictProba`` and ``predictLeaf``
    of a ``Map<String, ?>`` (of an ``Object[]``, the rows given so: :data:`WAYS`), each row as a user's code builds
    it."""
    model, driver = compile_sources([source, DRIVER], javac=javac, release=release)
    # the serial collector: the default one grew the JVM to 843 MB over the bench's 60,766 rows; C1 alone (as javac's
    # JVM): C2's compiles of a big model's methods did not pay off over the driver's rows (CatBoost's default pairs
    # model, 16,586 rows given: 7.0-7.5 -> 3.0-3.3 s of CPU; the bench's 1,360-leaf tree the same either way)
    done = subprocess.run([java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                           os.pathsep.join(dict.fromkeys([model, driver])), "TreegenRowApi", class_name(source)],
                          input=driver_input.encode("utf-8"), capture_output=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"java exited with {done.returncode}: {done.stderr.decode('utf-8', 'replace')}")
    return done.stdout.decode("utf-8")


# The class found by name (reflection: the driver compiles without it); each CSV row a HashMap of feature name ->
# Double or String, its missing values given each way the plan says (way 'o': the map's values in an Object[] in
# FEATURES order, null where missing). Numbers printed by Double.toString.
DRIVER = r"""import java.io.*;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.*;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class TreegenRowApi {
    public static void main(String[] args) throws Exception {
        Class<?> model = Class.forName(args[0]);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();  // (Java 8: no readAllBytes)
        byte[] buffer = new byte[1 << 16];
        for (int n; (n = System.in.read(buffer)) > 0; ) {
            bytes.write(buffer, 0, n);
        }
        String text = new String(bytes.toByteArray(), StandardCharsets.UTF_8);
        String plan = text.substring(0, text.indexOf('\n'));
        List<List<String>> records = records(text.substring(text.indexOf('\n') + 1));
        List<String> names = records.get(0);
        String[] numeric = planned(plan, "\"numeric\": \\[([^\\]]*)\\]").split(", ");
        String[] ways = planned(plan, "\"ways\": \"([^\"]*)\"").split(",", -1);
        boolean proba = planned(plan, "\"proba\": (\\w+)").equals("true");
        boolean leaf = planned(plan, "\"leaf\": (\\w+)").equals("true");
        Method[] byMap = api(model, Map.class, proba, leaf), byArray = api(model, Object[].class, proba, leaf);
        List<?> features = (List<?>) model.getField("FEATURES").get(null);
        Writer out = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.out),
            StandardCharsets.UTF_8), 1 << 16);
        String between = "[";
        List<Map<String, Object>> asked = new ArrayList<>();  // each row asked, as first given: for the rows API
        for (int r = 0; r < ways.length; r++) {
            List<String> record = records.get(r + 1);  // (a row not asked has no ways)
            for (char way : ways[r].toCharArray()) {
                Map<String, Object> row = new HashMap<>();
                for (int i = 0; i < names.size(); i++) {
                    Object value = value(record.get(i), numeric[i].equals("true"));
                    if (value != null || way == 'n' || way == '-' || way == 'o') {
                        row.put(names.get(i), value);
                    } else if (way == 'f') {
                        row.put(names.get(i), Double.NaN);
                    }
                }
                out.write(between + (way == 'o' ? answer(inOrder(row, features), byArray) : answer(row, byMap)));
                between = ",";
                if (way == ways[r].charAt(0)) {
                    asked.add(row);
                }
            }
        }
        out.write(between.equals("[") ? "[]" : "]");
        out.write("\n" + rowsAnswers(model, asked, planned(plan, "\"batches\": \\[([^\\]]*)\\]").split(", "),
            proba));
        out.flush();
    }

    /** Per batch size, the answers of predictRows (and predictProbaRows) called on the rows encoded, that many
     * rows a call: a JSON array of arrays of [label, scores, null], or {"error": ...} for each row of a call that
     * threw. */
    static String rowsAnswers(Class<?> model, List<Map<String, Object>> asked, String[] batches, boolean proba)
            throws Exception {
        Method encode = model.getMethod("encode", Map.class);
        Method predictRows = model.getMethod("predictRows", double[][].class);
        Method probaRows = proba ? model.getMethod("predictProbaRows", double[][].class) : null;
        StringBuilder out = new StringBuilder("[");
        for (String batch : batches) {
            if (batch.isEmpty()) {  // (no sizes)
                continue;
            }
            int size = Integer.parseInt(batch);
            out.append(out.length() > 1 ? ",[" : "[");
            for (int first = 0; first < asked.size(); first += size) {
                int n = Math.min(size, asked.size() - first);
                try {
                    double[][] rows = new double[n][];
                    for (int r = 0; r < n; r++) {
                        rows[r] = (double[]) encode.invoke(null, asked.get(first + r));
                    }
                    Object labels = predictRows.invoke(null, (Object) rows);
                    double[][] scores = proba ? (double[][]) probaRows.invoke(null, (Object) rows) : null;
                    for (int r = 0; r < n; r++) {
                        String label = labels instanceof String[] ? ((String[]) labels)[r]
                            : Double.toString(((double[]) labels)[r]);
                        out.append(first + r > 0 ? "," : "").append("[").append(quote(label)).append(",");
                        if (scores == null) {
                            out.append("null");
                        } else {
                            out.append("[");
                            for (int k = 0; k < scores[r].length; k++) {
                                out.append(k > 0 ? "," : "").append(quote(Double.toString(scores[r][k])));
                            }
                            out.append("]");
                        }
                        out.append(",null]");
                    }
                } catch (InvocationTargetException thrown) {
                    Throwable error = thrown.getCause();
                    String answer = "{\"error\":" + quote(error.getClass().getSimpleName() + ": " + error.getMessage()) + "}";
                    for (int r = 0; r < n; r++) {
                        out.append(first + r > 0 ? "," : "").append(answer);
                    }
                }
            }
            out.append("]");
        }
        return out.append("]").toString();
    }

    static String planned(String plan, String pattern) {
        Matcher found = Pattern.compile(pattern).matcher(plan);
        found.find();
        return found.group(1);
    }

    /** The records of verify's CSV (RFC 4180, lines ending in LF). */
    static List<List<String>> records(String csv) {
        List<List<String>> records = new ArrayList<>();
        List<String> record = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < csv.length(); i++) {
            char c = csv.charAt(i);
            if (quoted) {
                if (c != '"') {
                    field.append(c);
                } else if (i + 1 < csv.length() && csv.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else {
                    quoted = false;
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',' || c == '\n') {
                record.add(field.toString());
                field.setLength(0);
                if (c == '\n') {
                    records.add(record);
                    record = new ArrayList<>();
                }
            } else {
                field.append(c);
            }
        }
        return records;
    }

    /** A field as a user's code holds it: a Double (Python's repr of a double), a String, or null (missing). */
    static Object value(String field, boolean numeric) {
        int start = 0, end = field.length();
        while (start < end && field.charAt(start) == ' ') {
            start++;
        }
        while (end > start && field.charAt(end - 1) == ' ') {
            end--;
        }
        String stripped = field.substring(start, end);  // (spaces only, as treegen's CSV)
        if (stripped.isEmpty() || stripped.equals("?") || stripped.equals("NA")) {
            return null;
        }
        if (!numeric) {
            return field;
        }
        double x = number(field);
        return Double.isNaN(x) ? null : (Object) x;
    }

    /** Python's repr of a double: a number ends in a digit or a point, else it is inf, -inf or nan. */
    static double number(String text) {
        char last = text.charAt(text.length() - 1);
        if (last >= '0' && last <= '9' || last == '.') {
            return Double.parseDouble(text);
        }
        String word = text.toLowerCase(Locale.ROOT);
        if (word.endsWith("nan")) {
            return Double.NaN;
        }
        return word.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    }

    /** The model's predict, predictProba and predictLeaf of a row of type {@code row} (null: not asked). */
    static Method[] api(Class<?> model, Class<?> row, boolean proba, boolean leaf) throws Exception {
        return new Method[] {model.getMethod("predict", row), proba ? model.getMethod("predictProba", row) : null,
            leaf ? model.getMethod("predictLeaf", row) : null};
    }

    /** The values of a row in FEATURES order, as predict(Object[]) takes them. */
    static Object[] inOrder(Map<String, Object> row, List<?> features) {
        Object[] values = new Object[features.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = row.get(features.get(i));
        }
        return values;
    }

    static String answer(Object row, Method[] api) throws Exception {
        Method predict = api[0], proba = api[1], leaf = api[2];
        try {
            Object label = predict.invoke(null, row);
            StringBuilder out = new StringBuilder("[").append(quote(label instanceof String ? (String) label
                : Double.toString((Double) label))).append(",");
            if (proba == null) {
                out.append("null");
            } else {
                double[] scores = (double[]) proba.invoke(null, row);
                out.append("[");
                for (int k = 0; k < scores.length; k++) {
                    out.append(k > 0 ? "," : "").append(quote(Double.toString(scores[k])));
                }
                out.append("]");
            }
            out.append(",");
            if (leaf == null) {
                return out.append("null]").toString();
            }
            StringBuilder ids = new StringBuilder();
            int[][] leaves = (int[][]) leaf.invoke(null, row);
            for (int t = 0; t < leaves.length; t++) {
                for (int i = 0; i < leaves[t].length; i++) {
                    ids.append(i > 0 ? "|" : "").append(leaves[t][i]);
                }
                ids.append(t + 1 < leaves.length ? ";" : "");
            }
            return out.append(quote(ids.toString())).append("]").toString();
        } catch (InvocationTargetException thrown) {
            Throwable error = thrown.getCause();
            return "{\"error\":" + quote(error.getClass().getSimpleName() + ": " + error.getMessage()) + "}";
        }
    }

    /** A JSON string, every character outside printable ASCII escaped. */
    static String quote(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
"""


def run_loaded(source: str, csv_text: str, args=(), java: str = "java", javac: str = "javac",
               release: str | None = None, **_context) -> str:
    """What :func:`run` prints, the program's ``main`` run in a JVM kept loaded for the purpose: the
    class loaded anew each time (its own class loader), standard input the CSV, its standard output
    the same descriptor a program of its own writes to. For callers that check what programs print,
    not how a JVM starts: ~0.02 s of CPU a run instead of ~0.15 s. A program that ends its JVM
    (``System.exit``: bad input, a closed pipe) or throws runs again as a process of its own, so that
    the error raised is the one :func:`run` raises."""
    directory = compile_sources([source], javac=javac, release=release)[0]
    with tempfile.NamedTemporaryFile("wb", prefix="treegen-java-input-", suffix=".csv") as data:
        data.write(csv_text.encode("utf-8"))
        data.flush()
        printed = _run_in_runner(java, [directory, class_name(source), data.name, *args])
    return printed if printed is not None else run(source, csv_text, args, java=java, javac=javac, release=release)


RUNNER = """import java.io.*;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

public class TreegenRunner {
    public static void main(String[] unused) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        OutputStream out = new FileOutputStream(FileDescriptor.out);  // where the programs write too
        for (String line; (line = in.readLine()) != null; ) {
            String[] fields = line.split("\\u0000", -1);
            URL classes = new File(fields[1]).toURI().toURL();
            try (URLClassLoader loader = new URLClassLoader(new URL[] {classes});
                 InputStream csv = new BufferedInputStream(new FileInputStream(fields[3]))) {
                System.setIn(csv);
                Class.forName(fields[2], true, loader).getMethod("main", String[].class)
                    .invoke(null, (Object) Arrays.copyOfRange(fields, 4, fields.length));
            } catch (ReflectiveOperationException failed) {
                System.exit(1);  // the caller runs the program alone for its error
            }
            out.write((fields[0] + "\\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }
}
"""
_programs = _kept_jvms("TreegenRunner", RUNNER, stderr=subprocess.DEVNULL)
atexit.register(_programs.close)


def _run_in_runner(java: str, fields: list[str]) -> str | None:
    """What the program printed; None when it ended the JVM or failed. A request to :data:`RUNNER` is
    a line of NUL-separated fields (an end marker, the class directory, the class, the CSV's path, the
    program's arguments); the reply is what the program printed, then the marker and a line break."""
    end = f"--treegen-end-{uuid.uuid4().hex}--\n".encode()
    with _programs.process(java) as server:
        server.stdin.write("\0".join([end.decode().strip(), *fields]).encode("utf-8") + b"\n")
        server.stdin.flush()
        printed = bytearray()
        while not printed.endswith(end):
            chunk = os.read(server.stdout.fileno(), 1 << 16)
            if not chunk:  # System.exit, or a throw: the server is gone
                server.wait()
                return None
            printed += chunk
        return printed[:-len(end)].decode("utf-8")
