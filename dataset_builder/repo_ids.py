"""Hub repo ids `ORG/NAME`, checked by huggingface_hub's own rules; light, for the command line's argument types
(huggingface_hub is imported when an id is checked, not when the parser is built)."""

from __future__ import annotations

import argparse


def checked_repo_id(value: str, what: str) -> str:
    """`value` if it is a repo id `ORG/NAME` by huggingface_hub's own rules (`validate_repo_id`).

    Raises:
        ValueError: naming `what` (an option or variable) and `value`, and what is wrong with it.
    """
    from huggingface_hub.errors import HFValidationError
    from huggingface_hub.utils import validate_repo_id

    try:
        validate_repo_id(value)
    except HFValidationError as error:
        reason = str(error).partition(": '")[0]  # its message ends by quoting the value, which ours names already
    else:
        reason = None if value.count("/") == 1 else "no '/' between the owner and the name"
    if reason:
        raise ValueError(f"{what} must be a repo id ORG/NAME, not {value!r} ({reason})")
    return value


def card_repo_id(text: str) -> str:
    """argparse type of `build --repo-id`: a repo id ORG/NAME (huggingface_hub's rules), else one clear error."""
    try:
        return checked_repo_id(text, "it")  # argparse names the option: "argument --repo-id: it must be ..."
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


__all__ = ["card_repo_id", "checked_repo_id"]
