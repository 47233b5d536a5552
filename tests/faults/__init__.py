"""Issue 12's fault suite: a deployment in real processes, faults during a burst of mentions."""
