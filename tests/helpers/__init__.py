"""What tests of several folders share."""
