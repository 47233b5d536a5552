"""A room's messages: posting, mentions, a person's posts, paging and the timeline reads."""
