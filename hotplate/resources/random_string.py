"""OS::Heat::RandomString: a random string (passwords, secrets), generated once.

The value is kept in resource data, redacted, and is what ``get_resource``
returns. No property allows update, so changing any of them (``salt`` exists
for exactly this) replaces the resource and so generates a new string.

Generation follows Heat: first ``min`` characters from each character
sequence and class, then the rest from the union of all of them, then a
shuffle; with no classes given the default class is lettersdigits. The
deprecated ``sequence`` property becomes one more character class.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Mapping, Sequence
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.attributes import Attribute
from hotplate.resources.base import Resource
from hotplate.resources.properties import AllowedValues, PropertyPath, Range, Schema
from hotplate.resources.support import Status, SupportStatus

__all__ = ["CHARACTER_CLASSES", "RandomString", "generate"]

LENGTH, SEQUENCE, CHARACTER_CLASSES_PROP, CHARACTER_SEQUENCES, SALT = (
    "length", "sequence", "character_classes", "character_sequences", "salt",
)
CLASS, MIN = "class", "min"
VALUE = "value"

CHARACTER_CLASSES: dict[str, str] = {
    "lettersdigits": string.ascii_letters + string.digits,
    "letters": string.ascii_letters,
    "lowercase": string.ascii_lowercase,
    "uppercase": string.ascii_uppercase,
    "digits": string.digits,
    "hexdigits": string.digits + "ABCDEF",
    "octdigits": string.octdigits,
}
"""Heat's named classes (note: hexdigits is upper case only)."""

_CLASS_NAMES = tuple(CHARACTER_CLASSES)

_TOO_SHORT = (
    "Length property cannot be smaller than combined character class and character "
    "sequence minimums"
)


def generate(length: int, pools: Sequence[tuple[str, int]], rng: Any = None) -> str:
    """A string of ``length`` characters with at least ``min`` from each ``(chars, min)``.

    The rest comes from the union of every pool; the result is shuffled so
    the guaranteed characters are not at the front. ``rng`` (a
    ``random.Random``-like object) defaults to the operating system's.
    """
    rand = rng if rng is not None else secrets.SystemRandom()
    chosen: list[str] = []
    union: set[str] = set()
    for chars, minimum in pools:
        union.update(chars)
        chosen.extend(rand.choice(chars) for _ in range(minimum))
    everything = sorted(union)
    chosen.extend(rand.choice(everything) for _ in range(max(0, length - len(chosen))))
    return "".join(rand.sample(chosen, length))


def _min_schema(subject: str) -> Schema:
    return Schema(
        Schema.INTEGER,
        f"The minimum number of characters from this {subject} that will be in the "
        "generated string.",
        default=1,
        constraints=[Range(1, 512)],
    )


class RandomString(Resource):
    """A resource which generates a random string.

    This is useful for configuring passwords and secrets on services. Random
    string can be generated from specified character sequences, which means
    that all characters will be randomly chosen from specified sequences, or
    with some classes, e.g. letterdigits, which means that all character will
    be randomly chosen from union of ascii letters and digits. Output string
    will be randomly generated string with specified length (or with length of
    32, if length property doesn't specified).
    """

    local_only = True
    support_status = SupportStatus(version="2014.1")

    properties_schema = {
        LENGTH: Schema(
            Schema.INTEGER,
            "Length of the string to generate.",
            default=32,
            constraints=[Range(1, 512)],
        ),
        SEQUENCE: Schema(
            Schema.STRING,
            "Sequence of characters to build the random string from.",
            constraints=[AllowedValues(_CLASS_NAMES)],
            support_status=SupportStatus(
                Status.HIDDEN,
                version="5.0.0",
                previous_status=SupportStatus(
                    Status.DEPRECATED,
                    version="2014.2",
                    message=f"Use property {CHARACTER_CLASSES_PROP}.",
                ),
            ),
        ),
        CHARACTER_CLASSES_PROP: Schema(
            Schema.LIST,
            "A list of character class and their constraints to generate the random "
            "string from.",
            schema=Schema(
                Schema.MAP,
                schema={
                    CLASS: Schema(
                        Schema.STRING,
                        f"A character class and its corresponding {MIN} constraint to "
                        "generate the random string from.",
                        constraints=[AllowedValues(_CLASS_NAMES)],
                        default="lettersdigits",
                    ),
                    MIN: _min_schema("character class"),
                },
            ),
            default=[{CLASS: "lettersdigits", MIN: 1}],
        ),
        CHARACTER_SEQUENCES: Schema(
            Schema.LIST,
            "A list of character sequences and their constraints to generate the "
            "random string from.",
            schema=Schema(
                Schema.MAP,
                schema={
                    SEQUENCE: Schema(
                        Schema.STRING,
                        f"A character sequence and its corresponding {MIN} constraint "
                        "to generate the random string from.",
                        required=True,
                    ),
                    MIN: _min_schema("sequence"),
                },
            ),
        ),
        SALT: Schema(
            Schema.STRING,
            "Value which can be set or changed on stack update to trigger the resource "
            "for replacement with a new random string. The salt value itself is ignored "
            "by the random generator.",
        ),
    }

    attributes_schema = {
        VALUE: Attribute(
            "The random string generated by this resource. This value is also available "
            "by referencing the resource.",
            Attribute.STRING,
        ),
    }

    @classmethod
    def validate(cls, raw: Mapping[str, Any] | None, path: PropertyPath) -> dict[str, Any]:
        """Validate; fold ``sequence`` into the classes; refuse minimums above ``length``."""
        props = super().validate(cls._translate(raw), path)
        minimum = sum(item[MIN] for item in props[CHARACTER_SEQUENCES] or ()) + sum(
            item[MIN] for item in props[CHARACTER_CLASSES_PROP] or ()
        )
        if minimum > props[LENGTH]:
            raise StackValidationFailed(_TOO_SHORT)
        return props

    @staticmethod
    def _translate(raw: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        """Heat's translation rule: ``sequence: X`` adds ``{class: X, min: 1}`` to the
        classes given (replacing the default) and is then dropped."""
        if not isinstance(raw, Mapping) or not raw.get(SEQUENCE):
            return raw
        classes = raw.get(CHARACTER_CLASSES_PROP)
        added = [*(classes if isinstance(classes, list) else ()),
                 {CLASS: raw[SEQUENCE], MIN: 1}]
        return {**raw, CHARACTER_CLASSES_PROP: added, SEQUENCE: None}

    def handle_create(self) -> None:
        sequences = self.properties[CHARACTER_SEQUENCES] or ()
        pools = [(item[SEQUENCE], item[MIN]) for item in sequences]
        pools += [
            (CHARACTER_CLASSES[item[CLASS]], item[MIN])
            for item in self.properties[CHARACTER_CLASSES_PROP] or ()
        ]
        self.data_set(VALUE, generate(self.properties[LENGTH], pools), redact=True)
        self.resource_id_set(self.physical_resource_name())

    def _resolve_attribute(self, name: str) -> Any:
        if name == VALUE:
            return self.data().get(VALUE)
        return None

    def get_reference_id(self) -> str:
        """The generated string itself (Heat's choice), or the name before creation."""
        if self.resource_id is not None:
            return self.data().get(VALUE) or ""
        return self.name
