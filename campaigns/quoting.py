"""Quoting a post: the Markdown a reply starts from."""

from __future__ import annotations

from campaigns.models import Post, PostKind, Voice


def speaker_name(post: Post) -> str:
    """Who the post speaks as: the character, the NPC, or the account."""
    if post.voice == Voice.CHARACTER and post.character is not None:
        return post.character.name
    if post.voice == Voice.NPC and post.npc_name:
        return post.npc_name
    return post.shown_author.public_name


def quotable(post: Post) -> bool:
    """Story posts that still have a text (a procedure's record or a deleted post has nothing to quote)."""
    return post.kind == PostKind.STORY and not post.is_deleted and bool(post.body_source)


def quote_markdown(post: Post, permalink: str) -> str:
    """The post's text as a Markdown quote, ending with who said it and a link to the post.

    Only the body is quoted: game notes are the author's aside, not what the character said.
    """
    quoted = "\n".join(f"> {line}" if line else ">" for line in post.body_source.strip().splitlines())
    name = speaker_name(post).replace("[", "\\[").replace("]", "\\]")
    return f"{quoted}\n>\n> — [{name}]({permalink})\n\n"
