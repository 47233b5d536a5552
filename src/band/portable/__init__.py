"""Moving a workspace between Band deployments: ``band export`` / ``band import``.

The archive (``archive``) is JSON Lines plus files, versioned and checksummed; the exporter
reads any Band-compatible platform's REST API, the importer writes into a deployment of ours
through its admin import endpoint, resumably.
"""

from .archive import ArchiveError, ArchiveReader, ArchiveWriter, Manifest
from .exporter import ExportSummary, export_archive
from .importer import ImportSummary, NewKey, import_archive

__all__ = [
    "ArchiveError",
    "ArchiveReader",
    "ArchiveWriter",
    "ExportSummary",
    "ImportSummary",
    "Manifest",
    "NewKey",
    "export_archive",
    "import_archive",
]
