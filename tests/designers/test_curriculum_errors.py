"""A curriculum's mistakes are found at load, one line each, naming the stage and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from designers.builtin.curriculum import HandCurriculumDesigner, load_schedule
from envdesign_common.field_errors import ConfigError
from tests.envdesign_common.yaml_bombs import laughs


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "mine.yaml"
    path.write_text(text)
    return path


def test_a_typo_in_a_later_stage_names_the_stage_and_the_field(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "name: mine\nstages:\n"
        "  - {'3x3': {ratio: 1.0}}\n"
        "  - {'7x7': {holes_ratio: 0.3}, sizes: {'8x8': {holes_ratio: 0.3}, 9x9: {ratio: lots}}}\n"
        "  - {'12x12': {ratio: 1}}\n",
    )
    with pytest.raises(ConfigError) as err:
        load_schedule(path)
    assert str(err.value).splitlines() == [
        f"curriculum {path}:",
        "  stages.1.sizes.{7x7,8x8}.holes_ratio: not a field (got 0.3); "
        "fields are ratio, hole_ratio, wait_ratio; did you mean 'hole_ratio'?",
        "  stages.1.sizes.9x9.ratio: wrong type (got 'lots'); expected a number",
        "  stages.2: size 12 is not offered; sizes are 3..10",
    ]


def test_a_typo_in_the_schedule_itself_gets_a_suggestion(tmp_path: Path) -> None:
    path = write(tmp_path, "name: mine\nstage:\n  - {'3x3': {ratio: 1.0}}\n")
    with pytest.raises(ConfigError) as err:
        HandCurriculumDesigner(schedule=path)
    assert str(err.value) == (
        f"curriculum {path}: stage: not a field (got [{{'3x3': {{'ratio': 1.0}}}}]); "
        "fields are name, description, stages; did you mean 'stages'?"
    )  # and no "stages: missing": that is the same mistake


def test_broken_yaml_and_unknown_names_say_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^curriculum .*mine\.yaml: not valid YAML"):
        load_schedule(write(tmp_path, "stages: [unclosed\n"))
    with pytest.raises(ConfigError) as err:
        load_schedule("easy_to_hadr")
    assert str(err.value) == (
        "no built-in curriculum 'easy_to_hadr': the shipped ones are easy_to_hard; "
        "did you mean 'easy_to_hard'? (or give the path of a YAML file)"
    )


def test_any_file_may_be_named_but_its_content_is_never_shown(tmp_path: Path) -> None:
    passwd = tmp_path / "passwd"  # /etc/passwd's shape, with lines that must not be echoed
    passwd.write_text("root:x:0:0:root:/root:/bin/bash\nsvc:x:999:999::/home/svc:/bin/sh\n")
    for source, kind in ((passwd, "str"), (Path("/etc/passwd"), "str")):
        if not source.is_file():
            continue
        with pytest.raises(ConfigError) as err:
            load_schedule(source)
        assert str(err.value) == f"curriculum {source}: a config is a YAML mapping, got {kind}"
    other = write(tmp_path, "api_key: sk-very-secret\nendpoint: https://example.invalid\n")
    with pytest.raises(ConfigError) as err:
        load_schedule(other)
    assert str(err.value) == (
        f"curriculum {other}: not a curriculum (it has none of the fields name, description, "
        "stages); see configs/curricula/easy_to_hard.yaml"
    )


def test_a_broken_schedule_is_one_line_without_its_text(tmp_path: Path) -> None:
    path = write(tmp_path, 'name: mine\ntoken: "sk-very-secret\nstages: [\n')
    with pytest.raises(ConfigError) as err:
        load_schedule(path)
    message = str(err.value)
    assert message.startswith(f"curriculum {path}: not valid YAML at line ")
    assert "\n" not in message and "sk-very-secret" not in message


def test_a_bomb_schedule_is_refused_unbuilt(tmp_path: Path) -> None:
    path = write(tmp_path, f"name: mine\ndescription:\n{laughs(9, '  ')}stages: *i\n")
    with pytest.raises(ConfigError, match=r"^curriculum .*: the YAML is too large"):
        HandCurriculumDesigner(schedule=path)
