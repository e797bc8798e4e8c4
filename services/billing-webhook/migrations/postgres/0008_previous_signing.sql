-- How the previous secret signs: an owner who switches `polar_signing` changes the key their
-- receiver verifies with, so the old way keeps signing beside the new one for the overlap, as
-- after a rotation. NULL (rows rotated before this migration): as the current secret signs.
ALTER TABLE endpoints ADD COLUMN previous_polar_signing BOOLEAN;
