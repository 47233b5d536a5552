"""A room's messages: posting, mentions, a person's posts, paging, the timeline reads and
search."""
