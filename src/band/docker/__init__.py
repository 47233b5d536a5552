"""band-kit: run a Band agent inside a Docker Sandbox (``sbx``).

``band.docker.launcher`` boots a customer's locked Python project as the agent inside the
sandbox; ``band.docker.provision`` (the ``band-kit`` command) registers the agent on the host
and hands its key to the sandbox's credential proxy; ``band.docker.repo_init`` clones or checks
the project's repository; ``band.docker.sbx_process`` runs ``sbx`` without leaking secrets.
"""
