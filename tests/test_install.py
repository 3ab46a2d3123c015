"""The installed package (a wheel, not the source tree) finds its templates and grammar."""
import os
import site
import subprocess
import sys
import venv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_wheel_installs_into_a_fresh_virtualenv_and_exports(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(wheels), ROOT], check=True)
    [wheel] = list(wheels.glob("treegen-*.whl"))
    env_dir = tmp_path / "venv"
    # the dependencies (jinja2, lark, click, numpy) come from this test run's own environment, without
    # a download: a .pth file puts its site-packages after the new venv's, where the wheel goes, and
    # does not run the editable install's hook there, so treegen itself comes from the wheel
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = str(env_dir / "bin" / "python")
    own = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True).stdout.strip()
    with open(os.path.join(own, "parent.pth"), "w") as pth:
        pth.write("\n".join(site.getsitepackages()) + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "-q", str(wheel)],
                   check=True)
    work = tmp_path / "elsewhere"
    work.mkdir()
    where = subprocess.run([python, "-c", "import treegen, sys; print(treegen.__file__)"], cwd=work,
                           capture_output=True, text=True, check=True).stdout
    assert str(env_dir) in where
    treegen = str(env_dir / "bin" / "treegen")
    tennis = os.path.join(ROOT, "examples", "play_tennis.csv")
    subprocess.run([treegen, "train", tennis, "-a", "id3", "-o", "m.json"], cwd=work, check=True)
    for target in ("rules", "python", "java", "sql", "dot"):
        out = subprocess.run([treegen, "export", "m.json", "--to", target], cwd=work, capture_output=True,
                             text=True)
        assert out.returncode == 0 and out.stdout, (target, out.stderr)
    subprocess.run([treegen, "export", "m.json", "--to", "rules", "-o", "m.rules"], cwd=work, check=True)
    parsed = subprocess.run([treegen, "parse", "m.rules"], cwd=work, capture_output=True, text=True, check=True)
    assert '"format": "treegen-model"' in parsed.stdout


def test_the_xgboost_extra_installs_xgboost_cpu_where_the_hint_names_it():
    """pyproject.toml's [xgboost] extra brings exactly one XGBoost on every platform: xgboost-cpu (no CUDA
    libraries) where treegen's hint names it (packages.XGBOOST_CPU_PLATFORMS), xgboost itself elsewhere."""
    from treegen.packages import XGBOOST_CPU_PLATFORMS
    extra = extras()["xgboost"]
    platforms = {("Linux", "x86_64"), ("Linux", "aarch64"), ("Linux", "ppc64le"), ("Windows", "AMD64"),
                 ("Windows", "ARM64"), ("Darwin", "arm64"), ("Darwin", "x86_64")}
    for system, machine in platforms | XGBOOST_CPU_PLATFORMS:
        chosen = [r.name for r in extra if r.marker.evaluate({"platform_system": system, "platform_machine": machine})]
        expected = "xgboost-cpu" if (system, machine) in XGBOOST_CPU_PLATFORMS else "xgboost"
        assert chosen == [expected], (system, machine, chosen)


def extras() -> dict:
    """pyproject.toml's extras: name -> its requirements (packaging's Requirement)."""
    import tomllib

    from packaging.requirements import Requirement
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        listed = tomllib.load(f)["project"]["optional-dependencies"]
    return {name: [Requirement(r) for r in requirements] for name, requirements in listed.items()}


def test_every_extra_asks_for_the_scikit_learn_the_importer_needs():
    """The importer refuses a scikit-learn older than its MINIMUM_VERSION: every extra that
    brings scikit-learn asks for that version or later, so pip never installs one it refuses."""
    from treegen.importers.sklearn import MINIMUM_VERSION
    floor = ".".join(map(str, MINIMUM_VERSION))
    asked = {name: str(r.specifier) for name, requirements in extras().items() for r in requirements
             if r.name == "scikit-learn"}
    assert set(asked) >= {"sklearn", "test", "bench"} and set(asked.values()) == {f">={floor}"}, asked
