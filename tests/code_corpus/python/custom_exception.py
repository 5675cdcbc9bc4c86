# expect: ValidationFailed
class ValidationFailed(Exception):
    pass
raise ValidationFailed('row 3 has no id')
