"""The HTTP edge: flask-smorest blueprints, marshmallow schemas, the error table."""
