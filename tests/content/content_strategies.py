"""Hypothesis strategies for content values: every part type, nested tool_result content,
untrusted marks, refs and inline data; plus junk for the never-raise-anything-else properties.
"""

from __future__ import annotations

import base64
import dataclasses
from typing import Any

from guard_helpers import half_built
from hypothesis import strategies as st

from loomlint.content import (
    AudioPart,
    Content,
    ContentRef,
    DataSource,
    FilePart,
    ImagePart,
    JSONValue,
    LlmContentPart,
    LlmMessage,
    LlmRequest,
    MediaSource,
    RefSource,
    TextPart,
    ToolResultContentPart,
    ToolResultPart,
    ToolSpec,
    ToolUsePart,
    UntrustedOrigin,
)

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values: st.SearchStrategy[JSONValue] = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=8,
)

base64_data = st.binary(max_size=24).map(lambda raw: base64.b64encode(raw).decode("ascii"))
refs = st.builds(
    ContentRef, address=st.text(min_size=1, max_size=10), size=st.none() | st.integers(0, 10**9)
)
sources: st.SearchStrategy[MediaSource] = st.builds(RefSource, ref=refs) | st.builds(
    DataSource, data=base64_data
)
untrusted_marks = st.none() | st.builds(UntrustedOrigin, origin=st.text(max_size=10))
image_types = st.sampled_from(["image/png", "image/jpeg", "image/webp"])
audio_types = st.sampled_from(["audio/wav", "audio/mpeg"])
file_types = st.sampled_from(["application/pdf", "text/plain"])

text_parts = st.builds(TextPart, text=st.text(max_size=12))
image_parts = st.builds(
    ImagePart, media_type=image_types, source=sources, untrusted=untrusted_marks
)
audio_parts = st.builds(
    AudioPart, media_type=audio_types, source=sources, untrusted=untrusted_marks
)
file_parts = st.builds(
    FilePart,
    media_type=file_types,
    source=sources,
    untrusted=untrusted_marks,
    name=st.none() | st.text(max_size=10),
)
media_parts = image_parts | audio_parts | file_parts
tool_ids = st.sampled_from(["call_1", "call_2", "call_3"])
tool_use_parts = st.builds(ToolUsePart, id=tool_ids, name=st.text(max_size=8), input=json_values)
result_content_parts: st.SearchStrategy[ToolResultContentPart] = text_parts | media_parts
tool_result_parts = st.builds(
    ToolResultPart,
    tool_use_id=tool_ids,
    content=st.text(max_size=10) | st.lists(result_content_parts, max_size=3),
    is_error=st.booleans(),
)
parts: st.SearchStrategy[LlmContentPart] = (
    text_parts | media_parts | tool_use_parts | tool_result_parts
)
roles = st.sampled_from(["system", "user", "assistant"])
messages = st.builds(
    LlmMessage, role=roles, content=st.text(max_size=12) | st.lists(parts, max_size=4)
)
tool_specs = st.builds(
    ToolSpec,
    name=st.text(max_size=8),
    description=st.text(max_size=8),
    input_schema=st.dictionaries(st.text(max_size=5), json_values, max_size=3),
)
requests = st.builds(
    LlmRequest,
    messages=st.lists(messages, max_size=5),
    system=st.none() | st.text(max_size=8),
    tools=st.lists(tool_specs, max_size=2),
)

# Junk: values of the wrong type anywhere a field is, to prove the guard only raises its own
# errors whatever it is handed; half-built objects (made without __init__, some fields unset)
# among them.
_plain_junk: st.SearchStrategy[object] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=6),
    st.binary(max_size=6),
    st.tuples(st.integers()),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.builds(object),
    st.just(TextPart(text="x")),
    st.just(RefSource(ref=ContentRef(address="a"))),
    st.just(UntrustedOrigin(origin="web")),
)
_CONTENT_CLASSES: list[type[Any]] = [
    LlmRequest,
    LlmMessage,
    TextPart,
    ImagePart,
    AudioPart,
    FilePart,
    ToolUsePart,
    ToolResultPart,
    ToolSpec,
    DataSource,
    RefSource,
    ContentRef,
    UntrustedOrigin,
]


@st.composite
def half_built_objects(draw: st.DrawFn) -> object:
    """An instance of a content class made without ``__init__``, some of its fields set."""
    kind = draw(st.sampled_from(_CONTENT_CLASSES))
    names = [field.name for field in dataclasses.fields(kind)]
    chosen = draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names) - 1))
    return half_built(kind, **{name: draw(_plain_junk) for name in chosen})


junk: st.SearchStrategy[object] = _plain_junk | half_built_objects()


def _or_junk(strategy: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.one_of(strategy, junk)


junk_sources = _or_junk(
    st.builds(RefSource, ref=_or_junk(st.builds(ContentRef, address=junk, size=junk)))
    | st.builds(DataSource, data=_or_junk(base64_data | st.text(max_size=8)))
)
junk_parts: st.SearchStrategy[object] = st.recursive(
    st.one_of(
        junk,
        st.builds(TextPart, text=junk),
        st.builds(ImagePart, media_type=_or_junk(image_types), source=junk_sources, untrusted=junk),
        st.builds(AudioPart, media_type=junk, source=junk_sources, untrusted=untrusted_marks),
        st.builds(
            FilePart,
            media_type=_or_junk(file_types),
            source=junk_sources,
            untrusted=junk,
            name=junk,
        ),
        st.builds(ToolUsePart, id=_or_junk(tool_ids), name=junk, input=_or_junk(json_values)),
    ),
    lambda children: st.builds(
        ToolResultPart,
        tool_use_id=_or_junk(tool_ids),
        content=_or_junk(st.lists(children, max_size=3)),
        is_error=_or_junk(st.booleans()),
    ),
    max_leaves=6,
)
junk_messages = _or_junk(
    st.builds(
        LlmMessage,
        role=_or_junk(roles),
        content=_or_junk(st.lists(junk_parts | parts, max_size=4)),
    )
)
junk_requests: st.SearchStrategy[object] = _or_junk(
    st.builds(
        LlmRequest,
        messages=_or_junk(st.lists(junk_messages | messages, max_size=4)),
        system=_or_junk(st.none()),
        tools=_or_junk(st.lists(_or_junk(tool_specs), max_size=2)),
    )
)


# Valid requests: placement, pairing and provenance respected, so the guard must accept them.
trusted_media = st.one_of(
    st.builds(ImagePart, media_type=image_types, source=sources),
    st.builds(AudioPart, media_type=audio_types, source=sources),
    st.builds(
        FilePart, media_type=file_types, source=sources, name=st.none() | st.text(max_size=5)
    ),
)
untrusted_origins = st.builds(UntrustedOrigin, origin=st.text(max_size=10))
inline_sources = st.builds(DataSource, data=base64_data)
untrusted_media = st.one_of(
    st.builds(
        ImagePart, media_type=image_types, source=inline_sources, untrusted=untrusted_origins
    ),
    st.builds(
        AudioPart, media_type=audio_types, source=inline_sources, untrusted=untrusted_origins
    ),
    st.builds(
        FilePart,
        media_type=file_types,
        source=inline_sources,
        untrusted=untrusted_origins,
        name=st.none() | st.text(max_size=5),
    ),
)
user_parts: st.SearchStrategy[ToolResultContentPart] = text_parts | trusted_media | untrusted_media
# The same parts, typed for a message's content list (lists are invariant).
message_user_parts: st.SearchStrategy[LlmContentPart] = user_parts
message_text_parts: st.SearchStrategy[LlmContentPart] = text_parts


@st.composite
def valid_requests(draw: st.DrawFn) -> LlmRequest:
    """A conversation the guard must accept: tool calls answered after they are made, media
    only from the user, untrusted media only inline."""
    conversation: list[LlmMessage] = []
    for turn in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["user", "system", "assistant", "tool-turn"]))
        if kind == "user":
            content: Content = draw(st.text(max_size=8) | st.lists(message_user_parts, max_size=4))
            conversation.append(LlmMessage("user", content))
        elif kind == "system":
            conversation.append(LlmMessage("system", draw(st.text(max_size=8))))
        elif kind == "assistant":
            content = draw(st.text(max_size=8) | st.lists(message_text_parts, max_size=2))
            conversation.append(LlmMessage("assistant", content))
        else:
            ids = [f"call_{turn}_{index}" for index in range(draw(st.integers(1, 3)))]
            calls: list[LlmContentPart] = [
                ToolUsePart(id=tool_id, name="f", input=draw(json_values)) for tool_id in ids
            ]
            conversation.append(
                LlmMessage("assistant", draw(st.lists(text_parts, max_size=1)) + calls)
            )
            results: list[LlmContentPart] = [
                ToolResultPart(
                    tool_use_id=tool_id,
                    content=draw(st.text(max_size=5) | st.lists(user_parts, max_size=3)),
                    is_error=draw(st.booleans()),
                )
                for tool_id in draw(st.permutations(ids))
            ]
            conversation.append(
                LlmMessage("user", results + draw(st.lists(user_parts, max_size=2)))
            )
    return LlmRequest(
        messages=conversation,
        system=draw(st.none() | st.text(max_size=8)),
        tools=draw(st.lists(tool_specs, max_size=2)),
    )
