# expect: NotImplementedError
class Shape:
    def area(self):
        raise NotImplementedError('area')
Shape().area()
