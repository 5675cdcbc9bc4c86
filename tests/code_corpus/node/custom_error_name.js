// expect: ValidationError
class ValidationError extends Error {
  constructor(m) { super(m); this.name = 'ValidationError'; }
}
throw new ValidationError('id missing');
