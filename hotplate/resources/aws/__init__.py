"""The AWS-compatible resource types (Heat's ``heat/engine/resources/aws/``)."""
