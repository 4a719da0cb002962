"""Item models adapting engine results and document bytes to Qt views (QtCore/QtGui only, no QtWidgets)."""
