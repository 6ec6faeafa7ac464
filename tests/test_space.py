"""The README's front matter makes the repository a deployable Hugging Face Space."""
import sys
from importlib.metadata import version
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def front_matter() -> dict:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


def test_front_matter_names_the_installed_gradio_the_app_and_sign_in():
    space = front_matter()
    assert space["sdk"] == "gradio"
    assert space["sdk_version"] == version("gradio")
    assert (ROOT / space["app_file"]).is_file()
    assert space["python_version"] == f"{sys.version_info.major}.{sys.version_info.minor}"
    assert space["hf_oauth"] is True
    assert set(space.get("hf_oauth_scopes", [])) <= {"openid", "profile"}  # the name and organizations need no more
