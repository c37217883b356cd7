"""What every plan type shares: which of its keys the plan itself gave.

The engine fills an absent key with its default, and so do these types; a few readers need to
know the difference (the kernel backend leaves a sysctl alone unless the block sets it, the ns-3
translation refuses an option only where a block asks for it). pydantic keeps the same record as
``model_fields_set``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field


@dataclass(frozen=True, kw_only=True)
class PlanObject:
    # Keys present in the dict this object was read from, in its order (none for one built in code).
    given: tuple[str, ...] = field(default=(), repr=False, compare=False)

    def has(self, name: str) -> bool:
        """Whether the plan gave ``name`` (rather than leaving it to its default); a name that is
        not a field of this type is an error, so a renamed key fails here, not silently."""
        if name not in field_names(type(self)):
            raise AttributeError(f"{type(self).__name__} has no plan key {name!r}")
        return name in self.given


def field_names(cls: type[PlanObject]) -> frozenset[str]:
    """The plan keys of a plan type (its fields less ``given``)."""
    return frozenset(f.name for f in dataclasses.fields(cls) if f.name != "given")
